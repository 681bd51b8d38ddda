-- The database of deploy/compose.yaml, made once by the postgres image (as
-- its superuser, from /docker-entrypoint-initdb.d) on an empty data volume:
-- the two roles of deploy/README.md, "Roles", and the database, owned by
-- muggins_owner, which the migrations run as.  The passwords come from the
-- container's environment (compose.yaml); psql quotes them with :'...'.  An
-- unset one leaves its variable undefined and the statement fails, which
-- stops the container instead of making a role without a password.
\set ON_ERROR_STOP on
\getenv owner_password MUGGINS_OWNER_PASSWORD
\getenv service_password MUGGINS_SERVICE_PASSWORD

CREATE ROLE muggins_owner LOGIN PASSWORD :'owner_password';
CREATE ROLE muggins_service LOGIN PASSWORD :'service_password';
CREATE DATABASE muggins OWNER muggins_owner;
