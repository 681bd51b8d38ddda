"""The contracts the in-memory store and bus keep with PostgreSQL and NATS."""
