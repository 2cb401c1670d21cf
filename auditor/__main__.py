from auditor.entry import main

main()
