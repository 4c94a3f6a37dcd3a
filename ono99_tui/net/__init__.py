"""Tables over the network: the JSON-lines protocol, the server that owns every
table, and the client side of it (docs/protocol.md)."""
