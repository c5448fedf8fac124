"""The command line: argument parsing, the options of each sub-command, --help."""
