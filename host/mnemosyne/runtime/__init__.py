"""What Mnemosyne's own processes need of the Python runtime: memory given back, the cycle collector held
off, strings without UTF-8 copies, lazy registries and process settings. Empty on import: the host's hello
path loads only the modules it uses."""
