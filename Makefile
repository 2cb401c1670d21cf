# Two entry points: `make demo` audits the shipped samples, `make test` runs the test suite.
PYTHON ?= python3
VENV ?= .venv
BIN := $(VENV)/bin

.PHONY: demo test install bench samples typecheck clean

$(BIN)/auditor: pyproject.toml
	$(PYTHON) -m venv $(VENV)
	$(BIN)/pip install --quiet --upgrade pip
	$(BIN)/pip install --quiet -e '.[test]'
	touch $(BIN)/auditor

install: $(BIN)/auditor

demo: install
	@for b in samples/*/; do \
		name=$$(basename $$b); \
		$(BIN)/auditor audit $$b --out reports/$$name --format html,jsonl,junit --lang ca; \
		echo "  exit status $$? for $$name"; \
	done
	$(BIN)/auditor audit samples/casino-month-by-day --by-partition --out reports/casino-month-by-day-by-partition; \
		echo "  exit status $$? for casino-month-by-day, audited by partition"

test: install
	$(BIN)/python -m pytest

bench: install
	$(BIN)/pip install --quiet pandera
	$(BIN)/python bench/run.py --by-partition --copies 3 --clock-offset --shuffled --uuid-ids --text-formats

typecheck: install
	$(BIN)/pip install --quiet mypy==2.4.1
	$(BIN)/python -m mypy

samples: install
	$(BIN)/python -m auditor.simulate.samples

clean:
	rm -rf $(VENV) reports/*/ build *.egg-info
