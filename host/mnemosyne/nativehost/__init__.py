"""The native-messaging host the browser extension talks to (see host/PROTOCOL.md)."""
