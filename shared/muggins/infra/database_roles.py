"""The database's two roles: the owner, who migrates the schema, and the
service, who reads and appends and may do nothing else (migration 0008
grants to them and creates them if it may; named here and there only)."""

OWNER_ROLE = "muggins_owner"
SERVICE_ROLE = "muggins_service"
