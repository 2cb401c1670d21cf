"""Loading a bundle: discovery, raw reading, typing and quarantine."""

from auditor.loading.bundle import Bundle, BundleError, SourceFile, load_bundle

__all__ = ["Bundle", "BundleError", "SourceFile", "load_bundle"]
