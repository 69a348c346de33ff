"""The `mnemo` command line: one module per command, loaded only when used."""
