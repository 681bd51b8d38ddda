-- Least privilege (docs/eventstore.md, "Roles").  Two roles:
--   muggins_owner    owns every object here and runs the migrations;
--   muggins_service  what the service connects as: it reads and appends
--                    events, and does on the other tables only what its
--                    queries do.  Not a superuser and not an owner, it can
--                    neither disable the append-only triggers nor set
--                    session_replication_role, nor create anything.
-- Works on any database: the roles are created if missing (without LOGIN:
-- deploy/README.md says how to give them one), what earlier migrations
-- created is handed to muggins_owner, and the grants are written anew.
--
-- Every later migration that adds a table, sequence or function the service
-- uses GRANTs it to muggins_service itself, as here.  ALTER DEFAULT
-- PRIVILEGES is no substitute: it applies only to objects created by the
-- role it names (not to those a superuser creates), and it would hide from
-- each migration what the service may do to what it adds.

DO $$
BEGIN
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'muggins_owner') THEN
        CREATE ROLE muggins_owner NOLOGIN;
    END IF;
    IF NOT EXISTS (SELECT FROM pg_roles WHERE rolname = 'muggins_service') THEN
        CREATE ROLE muggins_service NOLOGIN;
    END IF;
EXCEPTION WHEN insufficient_privilege THEN
    RAISE EXCEPTION 'the roles muggins_owner and muggins_service are missing and % may not '
                    'create them', current_user
        USING ERRCODE = 'insufficient_privilege',
              HINT = 'create them first (deploy/README.md, "Roles")';
END;
$$;

-- The service's role must be nothing more than a login; ALTER ROLE fails
-- (and so this migration) for a migrating role that may not make it so.
DO $$
BEGIN
    IF EXISTS (SELECT FROM pg_roles WHERE rolname = 'muggins_service'
                  AND (rolsuper OR rolcreatedb OR rolcreaterole OR rolreplication
                       OR rolbypassrls)) THEN
        ALTER ROLE muggins_service NOSUPERUSER NOCREATEDB NOCREATEROLE NOREPLICATION
            NOBYPASSRLS;
    END IF;
    IF pg_has_role('muggins_service', 'muggins_owner', 'MEMBER') THEN
        RAISE EXCEPTION 'muggins_service is a member of muggins_owner: it would own the schema'
            USING ERRCODE = 'insufficient_privilege',
                  HINT = 'REVOKE muggins_owner FROM muggins_service';
    END IF;
END;
$$;

-- Nobody but the owner creates anything here (PostgreSQL before 15 let
-- everyone create in public), and it may (also what handing it objects
-- below needs); REVOKE and GRANT only warn when the migrating role may not
-- change these.
REVOKE CREATE ON SCHEMA public FROM PUBLIC;
GRANT USAGE, CREATE ON SCHEMA public TO muggins_owner;
GRANT USAGE ON SCHEMA public TO muggins_service;
DO $$
BEGIN
    EXECUTE format('REVOKE TEMPORARY ON DATABASE %I FROM PUBLIC', current_database());
    EXECUTE format('GRANT CONNECT ON DATABASE %I TO muggins_owner, muggins_service',
                   current_database());
END;
$$;

-- Everything earlier migrations made (as whoever ran them), to the owner;
-- what belongs to an extension or to a table (its serial sequences) stays.
DO $$
DECLARE
    v_object record;
BEGIN
    FOR v_object IN
        SELECT CASE c.relkind WHEN 'S' THEN 'SEQUENCE' WHEN 'v' THEN 'VIEW'
                              WHEN 'm' THEN 'MATERIALIZED VIEW' ELSE 'TABLE' END AS kind,
               c.oid::regclass::text AS name
          FROM pg_class AS c
         WHERE c.relnamespace = 'public'::regnamespace AND c.relkind IN ('r', 'p', 'S', 'v', 'm')
           AND c.relowner <> 'muggins_owner'::regrole
           AND NOT EXISTS (SELECT FROM pg_depend AS d
                            WHERE d.classid = 'pg_class'::regclass AND d.objid = c.oid
                              AND d.deptype IN ('a', 'i', 'e'))
        UNION ALL
        SELECT CASE p.prokind WHEN 'a' THEN 'AGGREGATE' ELSE 'ROUTINE' END,
               p.oid::regprocedure::text
          FROM pg_proc AS p
         WHERE p.pronamespace = 'public'::regnamespace AND p.proowner <> 'muggins_owner'::regrole
           AND NOT EXISTS (SELECT FROM pg_depend AS d
                            WHERE d.classid = 'pg_proc'::regclass AND d.objid = p.oid
                              AND d.deptype = 'e')
        UNION ALL
        SELECT CASE t.typtype WHEN 'd' THEN 'DOMAIN' ELSE 'TYPE' END, t.oid::regtype::text
          FROM pg_type AS t LEFT JOIN pg_class AS c ON c.oid = t.typrelid
         WHERE t.typnamespace = 'public'::regnamespace AND t.typowner <> 'muggins_owner'::regrole
           AND (t.typtype IN ('e', 'd', 'r') OR (t.typtype = 'c' AND c.relkind = 'c'))
           AND NOT EXISTS (SELECT FROM pg_depend AS d
                            WHERE d.classid = 'pg_type'::regclass AND d.objid = t.oid
                              AND d.deptype = 'e')
    LOOP
        BEGIN
            EXECUTE format('ALTER %s %s OWNER TO muggins_owner', v_object.kind, v_object.name);
        EXCEPTION WHEN insufficient_privilege THEN
            RAISE EXCEPTION '% may not hand % % to muggins_owner', current_user,
                            lower(v_object.kind), v_object.name
                USING ERRCODE = 'insufficient_privilege',
                      HINT = 'run this migration as a superuser, or as the owner of what '
                             'earlier migrations made when that role is a member of '
                             'muggins_owner';
        END;
    END LOOP;
END;
$$;

-- The service's privileges, exactly: whatever it had before goes first.
REVOKE ALL ON ALL TABLES IN SCHEMA public FROM muggins_service;
REVOKE ALL ON ALL SEQUENCES IN SCHEMA public FROM muggins_service;
REVOKE ALL ON ALL FUNCTIONS IN SCHEMA public FROM muggins_service;

-- The store: read and append, never change (eventstore/queries.sql).
-- append_events runs with the caller's rights; the functions it calls (the
-- hash chain's, 0007) keep PostgreSQL's default EXECUTE for everyone.
GRANT SELECT, INSERT ON events TO muggins_service;
DO $$
DECLARE
    v_function regprocedure;
BEGIN
    FOR v_function IN SELECT oid::regprocedure FROM pg_proc
                       WHERE proname = 'append_events'
                         AND pronamespace = 'public'::regnamespace LOOP
        EXECUTE format('GRANT EXECUTE ON FUNCTION %s TO muggins_service', v_function);
    END LOOP;
END;
$$;
GRANT SELECT ON schema_migrations TO muggins_service;
-- Readers' positions: a projector's rebuild deletes its own.
GRANT SELECT, INSERT, UPDATE, DELETE ON checkpoints TO muggins_service;

-- The table service (tables/queries.sql): seat tokens and players are
-- written and taken back, never changed; the schedule and presence are.
GRANT SELECT, INSERT, DELETE ON seat_tokens, players TO muggins_service;
GRANT SELECT, INSERT, UPDATE, DELETE ON due, presence, service_processes TO muggins_service;
GRANT USAGE ON SEQUENCE due_generation TO muggins_service;

-- Read models (projections/queries.sql): written, and emptied on a rebuild.
GRANT SELECT, INSERT, UPDATE, DELETE
   ON table_views, leaderboard, leaderboard_games, tables, seats TO muggins_service;
