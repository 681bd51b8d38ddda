from tests.integration.conftest import (  # noqa: F401  (the same real servers)
    database_url,
    nats_server,
    pool,
    postgres,
    servers_dir,
    store,
)
