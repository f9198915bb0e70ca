from jaslog.cli import main

main()
