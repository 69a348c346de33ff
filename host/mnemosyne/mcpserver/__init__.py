"""`mnemo mcp`: the archive as a read-only MCP server (server.py), its tools (catalog.py, tools.py).

The MCP SDK is imported only by server.py, which only `mnemo mcp` loads: the native host and the other
commands start without it.
"""
