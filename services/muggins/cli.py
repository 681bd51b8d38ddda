"""The ``muggins`` command.  Wiring only: each command parses its options,
calls into the library and prints."""

from __future__ import annotations

import asyncio
import contextlib
import multiprocessing
import os
import re
import secrets
import signal
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TYPE_CHECKING, Any, get_args, get_type_hints

import click
import msgspec
import structlog

from muggins.bootstrap import event_store_only, infrastructure, migrated_database
from muggins.bots.ladder import BOT_LEVELS, BotLevel
from muggins.bots.playbyplay import narrate
from muggins.bots.selfplay import make_bots, play_game, play_game_commands
from muggins.domain.codec import encoded_all
from muggins.eventstore.store import EventStore, StoreUnavailable
from muggins.evidence.checkpoints import SiteKeyInfo, public_keys, site_keys
from muggins.evidence.documents import DocumentError
from muggins.evidence.signing import PublicKeys, SiteKey
from muggins.infra.collector import settle_for_serving
from muggins.infra.embedded import (
    PASSWORDS_FILE,
    EmbeddedNats,
    EmbeddedPostgres,
    EmbeddedServerError,
    free_port,
    without_password,
)
from muggins.infra.logs import configure_logging
from muggins.infra.retry import Stopped
from muggins.projections.read_models import PROJECTIONS
from muggins.replay.analysis import ANALYSIS_ITERATIONS, analyse_hand, analysis_lines
from muggins.replay.documents_in import checkpoint_from, keys_from, receipts_from
from muggins.replay.evidence_file import encode_evidence, export_evidence
from muggins.replay.record import HandRecord, RecordError
from muggins.replay.show import frames, show_lines, step_through
from muggins.replay.source import (
    TableGame,
    encode_record,
    export_hand,
    load_table_games,
    load_table_record,
    read_record,
)
from muggins.replay.store_checks import check_checkpoint, check_receipts, verify_whole_store
from muggins.replay.table_verify import TableVerdict, verify_table
from muggins.replay.verify import HandVerdict, Problem, rebuilt_hands, verify_game, verify_record
from muggins.rules.describe import PRESET_SUMMARIES, describe
from muggins.rules.errors import InvalidRuleset
from muggins.rules.events import event_encoder
from muggins.rules.presets import DEFAULT_PRESET, PRESETS, preset, seatings
from muggins.rules.ruleset import Ruleset
from muggins.rules.shuffle import game_seed_from_text
from muggins.rules.state import GameState
from muggins.tables.commands import Commands
from muggins.tables.disputes import Disputes, every_dispute, table_disputes
from muggins.tables.errors import Refusal
from muggins.tables.metrics import BroadcastClock
from muggins.tables.next_step import Timings
from muggins.tables.operator_view import DisputeFile, dispute_file, dispute_lines
from muggins.tables.protocol import DisputeView
from muggins.tables.seat_keys import PostgresSeatKeys
from muggins.tables.seating import Seating
from muggins.tables.wakeups import Wakeups

if TYPE_CHECKING:
    from muggins.cluster.local import LocalCluster
from muggins.domain.streams import NoSuchTable, is_table_id, table_id, table_stream
from muggins.infra.settings import (
    ENVIRONMENT,
    Settings,
    SettingsError,
    environment_variable,
    load_settings,
    with_values,
)


@click.group(context_settings={"help_option_names": ["-h", "--help"]})
def main() -> None:
    """muggins: All Fives / Muggins dominoes, played fair."""


def _settings() -> Settings:
    try:
        settings = load_settings()
    except SettingsError as error:
        raise click.UsageError(str(error)) from None
    configure_logging(settings.log_format, settings.log_level)
    return settings


#: The settings ``muggins serve`` also takes as flags, each winning over its
#: environment variable and the config file: --NAME (dashes for
#: underscores), or the flag named here.  Type, range, default and help
#: come from the setting itself (muggins.infra.settings).
SERVE_FLAGS: dict[str, str | None] = {
    "listen_host": "--host", "listen_port": "--port", "public_url": None, "role": None,
    "projectors_in_process": "--projectors", "bot_delay": None, "hand_pause": None,
    "bot_workers": None, "expert_budget_ms": None, "takeover_bot": None,
    "grace_period": None, "idle_close": None, "absence_wait": None,
    "turn_clock_seconds": None, "tables_per_minute": None,
    "sockets_per_address": None, "sockets_per_minute": None, "penalty_seconds": None,
    "trusted_proxies": None,
}


class SettingValue(click.ParamType[Any, Any]):
    """A flag's text, converted and checked exactly as its setting's value is
    (msgspec, against the setting's own type and range)."""

    def __init__(self, setting: str, annotation: Any, shown: str) -> None:
        self.setting = setting
        self.annotation = annotation
        self.name = shown

    def convert(self, value: Any, param: click.Parameter | None,
                ctx: click.Context | None) -> Any:
        try:
            return msgspec.convert(value, self.annotation, strict=False)
        except msgspec.ValidationError as error:
            self.fail(f"{value!r}: {error} (setting {self.setting})", param, ctx)


def _setting_flags(command: Callable[..., None]) -> Callable[..., None]:
    """``command`` with a flag for each of SERVE_FLAGS, made from its setting."""
    described = msgspec.inspect.type_info(Settings)
    assert isinstance(described, msgspec.inspect.StructType)
    fields = {field.name: field for field in described.fields}
    hints = get_type_hints(Settings, include_extras=True)
    for name, flag in reversed(SERVE_FLAGS.items()):
        field = fields[name]
        kind = field.type.type if isinstance(field.type, msgspec.inspect.Metadata) \
            else field.type
        about = (field.type.extra_json_schema or {}).get("description", "") \
            if isinstance(field.type, msgspec.inspect.Metadata) else ""
        flag = flag or f"--{name.replace('_', '-')}"
        default = "none" if field.default is None else str(field.default).lower()
        help_text = (f"{about} [setting {name}, {environment_variable(name)}; "
                     f"default {default}{_range_of(kind)}]")
        if isinstance(kind, msgspec.inspect.BoolType):
            option = click.option(f"{flag}/--no-{flag.removeprefix('--')}", name,
                                  default=None, help=help_text)
        else:
            shown = ("|".join(map(str, kind.values))
                     if isinstance(kind, msgspec.inspect.LiteralType) else _metavar(kind))
            option = click.option(flag, name, type=SettingValue(name, hints[name], shown),
                                  default=None, metavar=shown.upper() if "|" not in shown
                                  else f"[{shown}]", help=help_text)
        command = option(command)
    return command


def _range_of(kind: msgspec.inspect.Type) -> str:
    low = getattr(kind, "ge", None)
    high = getattr(kind, "le", None)
    if low is not None and high is not None:
        return f"; {low} to {high}"
    if low is not None:
        return f"; at least {low}"
    return ""


def _metavar(kind: msgspec.inspect.Type) -> str:
    if isinstance(kind, msgspec.inspect.IntType):
        return "integer"
    if isinstance(kind, msgspec.inspect.FloatType):
        return "number"
    return "text"


@main.command("serve")
@_setting_flags
def serve_command(**flags: Any) -> None:
    """Run the table service (starting embedded PostgreSQL and NATS if none is configured).

    It answers /healthz at once and /readyz with what it waits for until
    PostgreSQL, NATS and the stream are ready (it waits for them, however
    long).  Every option is a setting (deploy/README.md); an option given
    here wins.
    """
    import uvicorn

    from muggins.tables.app import create_app
    from muggins.tables.websocket_protocol import WebSocketProtocol

    try:
        settings = with_values(_settings(),
                               {name: value for name, value in flags.items() if value is not None})
    except SettingsError as error:
        raise click.UsageError(str(error)) from None
    if settings.listen_port == 0:
        settings = msgspec.structs.replace(settings, listen_port=free_port())
    host, port = settings.listen_host, settings.listen_port
    server: uvicorn.Server | None = None
    failures: list[BaseException] = []

    def stop_serving(error: BaseException) -> None:
        """A failure no waiting mends (logged where it happened): stop, with an error."""
        failures.append(error)
        if server is not None:
            server.should_exit = True

    if settings.role == "spectators" and settings.spectators_niceness:
        # The players' moves first: on a shared host a crowd's fan-out waits for them.
        os.nice(settings.spectators_niceness)
    app = create_app(settings, on_failure=stop_serving)
    settle_for_serving()  # the collector's pauses, short and rare (muggins.infra.collector)
    log = structlog.get_logger("muggins.serve")
    if settings.forwarded_allow_ips is not None:
        log.warning("forwarded_allow_ips is the old name of trusted_proxies: rename it")
    log.info("muggins is starting", listen=f"http://{host}:{port}", api="/schema",
             share_links=settings.site_url, role=settings.role, niceness=os.nice(0),
             trusted_proxies=[str(network) for network in settings.trusted_proxy_networks])
    # Idle keep-alive connections stay open longer than clients keep them
    # (httpx: 5 s, browsers and proxies up to 60 s): a server that closes an
    # idle connection at the instant a client reuses it resets that request
    # (seen once as httpx.ReadError creating 500 tables: uvicorn's default
    # was 5 s, the same as httpx's).  proxy_headers=False: who the client is,
    # X-Forwarded-For or not, muggins.tables.client_address alone decides
    # (uvicorn's would believe loopback by default).
    # log_config=None: uvicorn logs through ours (JSON lines like every other).
    # ws=WebSocketProtocol: uvicorn's own, but a socket already closing at a
    # SIGTERM does not end the shutdown before the app's (see its module).
    server = uvicorn.Server(uvicorn.Config(
        app, host=host, port=port, log_level=settings.log_level, lifespan="on",
        log_config=None, ws=WebSocketProtocol, ws_max_size=64 * 1024, ws_per_message_deflate=False,
        timeout_graceful_shutdown=10, timeout_keep_alive=75,
        proxy_headers=False, access_log=False))
    # uvicorn, once its graceful shutdown is over, raises again the signal
    # that stopped it, to the handler it found.  Under SIGTERM's default
    # action the process then died without its exit handlers: the bot
    # workers' fork server left its folder in the temporary directory at
    # every stop.  Found here, the SIGTERM ends the serving as a return.
    try:
        with contextlib.suppress(_StoppedBySignal):
            signal.signal(signal.SIGTERM, _stopped_by_signal)
            server.run()
    finally:
        # The app has shut down, however it stopped.  A worker process still
        # thinking (an analysis thinks for seconds, at the lowest priority)
        # is ended: the interpreter's exit would wait for its job.
        for worker in multiprocessing.active_children():
            worker.terminate()
    if failures:
        raise click.ClickException(f"the service stopped: {failures[0]!r} (see the log)")


class _StoppedBySignal(SystemExit):
    """SIGTERM, after uvicorn's graceful shutdown.  A SystemExit (status 0):
    an event loop lets it through wherever the handler runs (uvloop logs any
    other exception raised in a signal handler, and carries on)."""


def _stopped_by_signal(signal_number: int, frame: object) -> None:
    raise _StoppedBySignal(0)


@main.command("up")
def up_command() -> None:
    """Start the embedded PostgreSQL and NATS (those not configured) and leave them running."""
    # Imported here: only the commands that talk to NATS (``up``, ``serve``,
    # ``project``) load its client (see muggins.bootstrap).
    from muggins.bus.jetstream import BusUnavailable, connect, ensure_stream, stream_config

    settings = _settings()

    async def start() -> tuple[str, str]:
        async with migrated_database(settings, with_nats=True, keep_servers=True) as database:
            assert database.nats_url is not None
            nc = await connect(database.nats_url)
            try:
                await ensure_stream(nc.jetstream(), stream_config(settings))
            finally:
                await nc.drain()
            return database.database_url, database.nats_url

    try:
        database_url, nats_url = asyncio.run(start())
    except (EmbeddedServerError, StoreUnavailable, BusUnavailable, OSError) as error:
        raise click.ClickException(str(error)) from None
    # The passwords stay in their file (readable by its owner only), not on
    # a terminal or in a scrollback.
    click.echo(f"PostgreSQL  {without_password(database_url)}")
    if settings.database_url is None:
        click.echo(f"passwords   {settings.data_path / PASSWORDS_FILE}")
    click.echo(f"NATS        {nats_url}")
    click.echo(f"data        {settings.data_path}")
    click.echo("stop them with `muggins down`")


@main.command("down")
def down_command() -> None:
    """Stop the embedded servers `muggins up` started."""
    settings = _settings()
    if settings.nats_url is None:
        EmbeddedNats(settings.data_path).stop()
        click.echo("NATS stopped")
    if settings.database_url is None:
        EmbeddedPostgres(settings.data_path).stop()
        click.echo("PostgreSQL stopped")


@main.group("db")
def db_group() -> None:
    """The event store's database."""


@db_group.command("upgrade")
def db_upgrade_command() -> None:
    """Apply the migrations not applied yet (also done at every start)."""
    settings = _settings()

    async def run() -> list[int]:
        async with migrated_database(settings) as database:
            return database.applied

    try:
        applied = asyncio.run(run())
    except (EmbeddedServerError, StoreUnavailable) as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"applied migrations {applied}" if applied else "the database is up to date")


def _ruleset(name: str, seats: int, partners: bool) -> Ruleset:
    try:
        return preset(name, seats, partners)
    except InvalidRuleset as error:
        raise click.BadParameter(str(error)) from None


def _seating_text(name: str) -> str:
    return ", ".join(f"{s} in partnerships" if p else str(s) for s, p in seatings(name))


@main.command("rules")
@click.argument("preset_name", metavar="PRESET", required=False)
@click.option("--seats", type=int, default=None, help="Seat count (default: the preset's first).")
@click.option("--partners", is_flag=True, help="Four seats in two partnerships.")
@click.option("--json", "as_json", is_flag=True, help="Print the ruleset as JSON.")
@click.option("--lang", type=click.Choice(["en", "es"]), default="en", show_default=True,
              help="The language of the rules in words.")
def rules_command(
    preset_name: str | None, seats: int | None, partners: bool, as_json: bool, lang: str
) -> None:
    """Show a preset's rules in words (without PRESET: list the presets)."""
    if preset_name is None:
        for name in PRESETS:
            click.echo(f"{name:<17} {PRESET_SUMMARIES[name]}")
            click.echo(f"{'':<17} seats: {_seating_text(name)}")
        return
    if preset_name not in PRESETS:
        raise click.BadParameter(
            f"unknown preset {preset_name!r}; known presets: {', '.join(PRESETS)}",
            param_hint="PRESET",
        )
    if seats is None:
        seats, default_partners = seatings(preset_name)[0]
        partners = partners or default_partners
    ruleset = _ruleset(preset_name, seats, partners)
    if as_json:
        click.echo(msgspec.json.format(msgspec.json.encode(ruleset)).decode())
        return
    click.echo(f"{preset_name} with {seats} seats" + (" in partnerships" if partners else ""))
    click.echo(f"(played with {_seating_text(preset_name)} seats)")
    lines = describe(ruleset, "es" if lang == "es" else "en")
    width = max(len(topic) for topic, _ in lines) + 1
    for topic, sentence in lines:
        click.echo(f"  {topic + ':':<{width}} {sentence}")


@main.command("simulate")
@click.option(
    "--ruleset",
    "preset_name",
    type=click.Choice(list(PRESETS)),
    default=DEFAULT_PRESET,
    show_default=True,
)
@click.option("--seats", type=click.IntRange(2, 4), default=2, show_default=True)
@click.option("--partners", is_flag=True, help="Four seats in two partnerships.")
@click.option("--seed", required=True, help="Any text; the same seed plays the same games.")
@click.option("--games", type=click.IntRange(1, 100_000), default=1, show_default=True)
@click.option(
    "--bots",
    default="greedy",
    show_default=True,
    help="Bot level per seat, comma-separated (one level applies to every seat): "
    + ", ".join(BOT_LEVELS),
)
@click.option(
    "--expert-iterations",
    type=click.IntRange(1, 1_000_000),
    default=1000,
    show_default=True,
    help="Simulations per decision of an expert bot (fixed: the same seed plays the same "
    "games).",
)
@click.option(
    "--expert-budget-ms",
    type=click.IntRange(1, 60_000),
    default=None,
    help="Think this long per decision instead (no longer reproducible).",
)
@click.option("--json", "as_json", is_flag=True, help="Print the events as JSON lines.")
@click.option(
    "--record",
    "record_prefix",
    metavar="PREFIX",
    help="Also store each game in the event store as table PREFIX-1, PREFIX-2 ...",
)
def simulate_command(
    preset_name: str,
    seats: int,
    partners: bool,
    seed: str,
    games: int,
    bots: str,
    expert_iterations: int,
    expert_budget_ms: int | None,
    as_json: bool,
    record_prefix: str | None,
) -> None:
    """Bots play whole games; the same seed gives the same output, byte for byte
    (unless an expert bot is given a time budget)."""
    ruleset = _ruleset(preset_name, seats, partners)
    levels = _bot_levels(bots, seats)
    thinking = ({"budget_ms": float(expert_budget_ms), "iterations": None}
                if expert_budget_ms is not None else {"iterations": expert_iterations})
    if record_prefix is not None:
        _record_games(ruleset, levels, seed, games, record_prefix, thinking)
        return
    out = sys.stdout
    for game_number in range(1, games + 1):
        game_seed = game_seed_from_text(f"{seed}/{game_number}")
        events = play_game(ruleset, game_seed, make_bots(levels, game_seed, **thinking))
        if as_json:
            for event in events:
                out.write(event_encoder.encode(event).decode())
                out.write("\n")
        else:
            if games > 1:
                out.write(f"{'=' * 20} game {game_number} {'=' * 20}\n")
            for line in narrate(events):
                out.write(line + "\n")


def _record_games(
    ruleset: Ruleset, levels: list[BotLevel], seed: str, games: int, prefix: str,
    thinking: dict[str, Any],
) -> None:
    """Play the games and append them to the event store, one command at a time."""
    if not re.fullmatch(r"[A-Za-z0-9_-]{1,50}", prefix):
        raise click.BadParameter("1-50 letters, digits, '-' or '_'", param_hint="--record")
    settings = _settings()

    async def record() -> list[str]:
        tables = []
        async with event_store_only(settings) as store:
            for game_number in range(1, games + 1):
                table = f"{prefix}-{game_number}"
                if await store.stream_version(table):
                    raise click.ClickException(f"table {table} exists already")
                game_seed = game_seed_from_text(f"{seed}/{game_number}")
                version = 0
                bots = make_bots(levels, game_seed, **thinking)
                for result in play_game_commands(ruleset, game_seed, bots):
                    await store.append(table, version, encoded_all(result.events),
                                       actor=result.actor)
                    version += len(result.events)
                tables.append(table)
        return tables

    try:
        tables = asyncio.run(record())
    except (EmbeddedServerError, StoreUnavailable) as error:
        raise click.ClickException(str(error)) from None
    for table in tables:
        click.echo(f"recorded table {table}")


def _bot_levels(text: str, seats: int) -> list[BotLevel]:
    names = [name.strip() for name in text.split(",") if name.strip()]
    if len(names) == 1:
        names *= seats
    if len(names) != seats:
        raise click.BadParameter(
            f"give one bot level, or one per seat ({seats})", param_hint="--bots"
        )
    valid = get_args(BotLevel)
    for name in names:
        if name not in valid:
            raise click.BadParameter(
                f"unknown bot level {name!r}; choose from {', '.join(valid)}", param_hint="--bots"
            )
    return names  # type: ignore[return-value]


@main.command("demo")
@click.option("--ruleset", "preset_name", type=click.Choice(list(PRESETS)), default=DEFAULT_PRESET)
@click.option("--seats", type=click.IntRange(2, 4), default=2)
@click.option("--partners", is_flag=True)
def demo_command(preset_name: str, seats: int, partners: bool) -> None:
    """Greedy bots play one game with a fresh random seed, told move by move."""
    ruleset = _ruleset(preset_name, seats, partners)
    seed = secrets.token_hex(8)
    # The game `simulate --seed SEED` plays first: its seed text is "SEED/1", and
    # every option it needs to deal and play the same way is spelled out.
    repeat = (f"muggins simulate --ruleset {preset_name} --seats {seats}"
              + (" --partners" if partners else "") + f" --bots greedy --seed {seed}")
    click.echo(f"seed {seed}: repeat this game with `{repeat}`")
    game_seed = game_seed_from_text(f"{seed}/1")
    for line in narrate(play_game(ruleset, game_seed, make_bots(["greedy"] * seats, game_seed))):
        click.echo(line)


PROJECTORS = tuple(PROJECTIONS)


class ProjectorStopped(Exception):
    """A projector process's loop ended by a bug (logged with its traceback)."""


@main.command("project")
@click.argument("name", type=click.Choice(PROJECTORS))
@click.option("--rebuild", is_flag=True, help="Drop the read model and rebuild it from event 0.")
@click.option("--metrics-port", type=click.IntRange(0, 65535), default=0, show_default=True,
              help="Serve Prometheus metrics (projected events, lag) on this port; 0: none.")
def project_command(name: str, rebuild: bool, metrics_port: int) -> None:
    """Run one projector as its own process: catch up, then follow the stream.

    With --rebuild it drops its read model, rebuilds it from the first event
    with a progress bar, prints the count and exits.
    """
    from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

    from muggins.projections.runner import ProjectorRunner

    settings = _settings()

    if metrics_port and not rebuild:
        from prometheus_client import start_http_server

        start_http_server(metrics_port, addr=settings.listen_host)

    async def run() -> int:
        stop = asyncio.Event()
        if not rebuild:  # also while it waits for its servers: a quick, clean stop
            loop = asyncio.get_running_loop()
            for signal_number in (signal.SIGINT, signal.SIGTERM):
                loop.add_signal_handler(signal_number, stop.set)
        async with infrastructure(settings, relay=False, stop=stop) as infra:
            runner = ProjectorRunner(infra.pool, infra.store, PROJECTIONS[name]())
            if not rebuild:
                # A bug ends the runner (or the bus's watchdog): logged with its
                # traceback where it happened; the process then exits with 1.
                ended: list[str] = []

                def loop_failed(loop_name: str, error: BaseException) -> None:
                    ended.append(f"{loop_name}: {error!r}")
                    stop.set()

                infra.tasks.on_failure(loop_failed)
                try:
                    await runner.follow(stop, infra.bus, old_consumers=infra.bus.js)
                except Exception as error:
                    ended.append(f"projector-{name}: {error!r}")
                if ended:
                    raise ProjectorStopped(f"projector {name} stopped: {ended[0]} (see the log)")
                return 0
            await runner.rebuild()
            head = await infra.store.head_position()
            with Progress(TextColumn(f"rebuilding {name}"), BarColumn(), MofNCompleteColumn(),
                          TextColumn("events")) as progress:
                task = progress.add_task(name, total=head)
                count = await runner.catch_up(
                    lambda _applied, position: progress.update(task, completed=position)
                )
            return count

    try:
        count = asyncio.run(run())
    except Stopped:
        return  # stopped while it waited for its servers
    except (EmbeddedServerError, StoreUnavailable, ProjectorStopped) as error:
        raise click.ClickException(str(error)) from None
    if rebuild:
        click.echo(f"{name}: rebuilt from {count} events")


@main.group("replay")
def replay_group() -> None:
    """Rebuild finished hands from their seeds and prove them fair."""


def _load_games(table: str, game: int | None) -> list[TableGame]:
    settings = _settings()

    async def load() -> list[TableGame]:
        async with event_store_only(settings) as store:
            return await load_table_games(store, table, game)

    try:
        return asyncio.run(load())
    except (EmbeddedServerError, StoreUnavailable, RecordError) as error:
        raise click.ClickException(str(error)) from None


def _one_game(table: str, games: list[TableGame], hand: int | None) -> TableGame:
    """The table's game, when what was asked names one hand of one game."""
    if len(games) > 1:
        which = "which game" if hand is None else f"which game's hand {hand} you mean"
        raise click.UsageError(
            f"table {table!r} has {len(games)} games: add --game N to say {which}"
        )
    return games[0]


def _game_label(table: str, game: TableGame) -> str:
    # A stream named in full (simulate's PREFIX-1, an old "abc-g1") is its own label.
    return f"table {table}" if game.stream == table else f"table {table}, game {game.number}"


def _game_heading(number: int | None) -> str:
    return f"=== game {number} ==="


def _read_record(path: str) -> HandRecord:
    try:
        return read_record(Path(path))
    except RecordError as error:
        raise click.ClickException(str(error)) from None


def _table_or_file(table: str | None, file: str | None, game: int | None) -> None:
    if (table is None) == (file is None):
        raise click.UsageError("give a TABLE or --file, not both")
    if file is not None and game is not None:
        raise click.UsageError("--game picks a game at a TABLE; a file holds one hand")


@replay_group.command("show")
@click.argument("table", required=False)
@click.option("--game", type=click.IntRange(1), help="One game at the table (default: every game).")
@click.option("--hand", type=click.IntRange(1), help="One hand (default: every hand).")
@click.option("--file", "file", type=click.Path(dir_okay=False), help="A hand record file.")
@click.option("--step", is_flag=True, help="One move at a time: n/→ forward, p/← back, q quit.")
@click.option("--analyse", "analyse", is_flag=True,
              help="After each hand, the expert's judgement of every decision: its preferred "
                   "play and the expected points each choice gave up (costly ones flagged).")
@click.option("--iterations", type=click.IntRange(50, 200_000), default=None,
              help="The expert's simulations per decision when analysing [1500].")
def replay_show(
    table: str | None, game: int | None, hand: int | None, file: str | None, step: bool,
    analyse: bool, iterations: int | None,
) -> None:
    """Tell a hand (or a table's games) move by move, rebuilt from seeds and decisions."""
    _table_or_file(table, file, game)
    # Each game's number and rebuilt hands (a file: one hand of no game in particular).
    told: list[tuple[int | None, list[tuple[GameState, HandVerdict]]]]
    try:
        if file is not None:
            record = _read_record(file)
            before = record.before.game_state(record.ruleset)
            told = [(None, [(before, verify_record(record))])]
        else:
            assert table is not None
            games = _load_games(table, game)
            if hand is not None or step:
                games = [_one_game(table, games, hand)]
            told = [(one.number, rebuilt_hands(one.events, hand)) for one in games]
    except RecordError as error:
        raise click.ClickException(str(error)) from None
    if step:
        _, verdicts = told[0]
        if len(verdicts) != 1:
            raise click.UsageError("--step shows one hand: add --hand N")
        before, verdict = verdicts[0]
        step_through(frames(before, verdict.rebuilt), click.getchar, click.echo, click.clear)
        return
    failed = False
    for number, verdicts in told:
        if len(told) > 1:
            click.echo(_game_heading(number))
        for before, verdict in verdicts:
            for line in show_lines(before, verdict):
                click.echo(line)
            failed = failed or not verdict.ok
            if analyse and verdict.ok and verdict.status != "unfinished":
                judged = analyse_hand(before, verdict.rebuilt, seed=f"{table or file}/{number}",
                                      iterations=iterations or ANALYSIS_ITERATIONS)
                for line in analysis_lines(judged):
                    click.echo(line)
    if failed:
        sys.exit(1)


def _report_hands(
    label: str, stream_problems: tuple[Problem, ...], hand_verdicts: tuple[HandVerdict, ...]
) -> tuple[int, bool]:
    """Print what was found; how many hands were checked, and whether anything is wrong."""
    for problem in stream_problems:
        click.echo(f"✗ {label}: {problem}")
    for verdict in hand_verdicts:
        if verdict.status == "unfinished":
            click.echo(f"… hand {verdict.hand}: still being played; its seed is not revealed yet")
        elif verdict.ok:
            click.echo(
                f"✓ hand {verdict.hand}: the seed matches its commitment, the deal and every "
                "draw come from the seed, every move is legal, every score is right"
            )
        else:
            for problem in verdict.problems:
                click.echo(f"✗ {problem}")
    bad = bool(stream_problems) or any(not v.ok for v in hand_verdicts)
    checked = sum(v.status != "unfinished" for v in hand_verdicts)
    return checked, bad


@replay_group.command("verify")
@click.argument("table", required=False)
@click.option("--game", type=click.IntRange(1), help="One game at the table (default: every game).")
@click.option("--hand", type=click.IntRange(1), help="One hand.")
@click.option("--all", "every", is_flag=True, help="Every hand (the default).")
@click.option("--file", "file", type=click.Path(dir_okay=False), help="A hand record file.")
@click.option("--receipt", "receipt", metavar="FILE",
              help="A player's receipts (one, or the page's list): is the stored record the "
                   "one they were given?")
@click.option("--checkpoint", "checkpoint", metavar="FILE|URL",
              help="A signed checkpoint kept earlier: was the history before it changed or "
                   "cut?  Without TABLE: the whole store, every event.")
@click.option("--store", "whole_store", is_flag=True,
              help="The whole store: every event's chain, and no gap in the positions.")
@click.option("--keys", "keys_source", metavar="FILE|URL",
              help="The site's public keys to trust (a muggins-keys file, e.g. "
                   "/.well-known/muggins-keys.json) [the keys the database lists].")
def replay_verify(
    table: str | None, game: int | None, hand: int | None, every: bool, file: str | None,
    receipt: str | None, checkpoint: str | None, whole_store: bool, keys_source: str | None,
) -> None:
    """Check that hands were dealt from their committed seeds and played by the rules.

    A TABLE is checked whole: its table stream, its chat and every game, each
    stream's hash chain, the store's chain around them and the seals by which
    the table vouches for its games (or only the game --game names).  Exit
    status 0 when everything checked is right, 1 when anything is wrong.
    """
    if receipt is not None or checkpoint is not None or whole_store:
        if file is not None or game is not None or hand is not None:
            raise click.UsageError("--receipt, --checkpoint and --store check what is stored: "
                                   "not with --file, --game or --hand")
        if receipt is not None and table is None:
            raise click.UsageError("--receipt needs the TABLE it was given at")
        _verify_evidence(table, receipt, checkpoint, whole_store, keys_source)
        return
    _table_or_file(table, file, game)
    if hand is not None and every:
        raise click.UsageError("--hand and --all do not go together")
    if table is not None and game is None and hand is None and is_table_id(table) \
            and _verify_table_whole(table, keys_source):
        return
    # What to check: (game number, label, problems with the stream, each hand's verdict).
    checks: list[tuple[int | None, str, tuple[Problem, ...], tuple[HandVerdict, ...]]]
    try:
        if file is not None:
            record = _read_record(file)
            checks = [(None, f"{file} (table {record.table})", (), (verify_record(record),))]
            summary = checks[0][1]
        else:
            assert table is not None
            games = _load_games(table, game)
            if hand is not None:
                games = [_one_game(table, games, hand)]
            checks = []
            for one in games:
                verdict = verify_game(one.events, hand)
                checks.append(
                    (one.number, _game_label(table, one), verdict.stream_problems, verdict.hands)
                )
            summary = f"table {table}, {len(games)} games"
            if len(games) == 1:
                summary = _game_label(table, games[0])
    except RecordError as error:
        raise click.ClickException(str(error)) from None
    checked = 0
    wrong_games: list[str] = []
    for number, label, stream_problems, hand_verdicts in checks:
        if len(checks) > 1:
            click.echo(_game_heading(number))
        hands, bad = _report_hands(label, stream_problems, hand_verdicts)
        checked += hands
        if bad:
            wrong_games.append(str(number))
    found = "PROBLEMS FOUND" if wrong_games else "all fair"
    if wrong_games and len(checks) > 1:
        found += f" in game{'s' if len(wrong_games) > 1 else ''} {', '.join(wrong_games)}"
    click.echo(f"{summary}: {checked} hand(s) checked, {found}")
    if wrong_games:
        sys.exit(1)


def _run_on_store(work: Callable[[EventStore], Any]) -> Any:
    """``work(store)`` on the configured store; its failures as clean errors."""
    settings = _settings()

    async def run() -> Any:
        async with event_store_only(settings) as store:
            return await work(store)

    try:
        return asyncio.run(run())
    except (EmbeddedServerError, StoreUnavailable, RecordError, DocumentError) as error:
        raise click.ClickException(str(error)) from None


async def _trusted_keys(store: EventStore, source: str | None) -> PublicKeys:
    return keys_from(source) if source else await public_keys(store.pool)


def _verify_table_whole(table: str, keys_source: str | None) -> bool:
    """Check a table the service played, whole, and say what was found;
    False (nothing said) when ``table`` has no table stream: its games alone
    are checked then (simulated tables, old names)."""
    async def load(store: EventStore) -> tuple[TableVerdict, PublicKeys] | None:
        if not await store.stream_version(table_stream(table)):
            return None
        keys = await _trusted_keys(store, keys_source)
        return verify_table(await load_table_record(store, table), keys), keys

    loaded = _run_on_store(load)
    if loaded is None:
        return False
    verdict, keys = loaded
    bad = False
    for stream in verdict.streams:
        click.echo(f"=== {stream.label} ({stream.stream}): {stream.events} events ===")
        for problem in stream.problems:
            click.echo(f"✗ {problem}")
        if not stream.problems and stream.events:
            click.echo("✓ every event is as it was appended")
        bad = bad or bool(stream.problems)
    checked = 0
    wrong_games: list[str] = []
    for one, game_verdict in verdict.games:
        click.echo(_game_heading(one.number))
        hands, wrong = _report_hands(_game_label(table, one), game_verdict.stream_problems,
                                     game_verdict.hands)
        checked += hands
        if wrong:
            wrong_games.append(str(one.number))
    click.echo("=== the store's chain around the table ===")
    for problem in verdict.store_problems:
        click.echo(f"✗ {problem}")
    if not verdict.store_problems:
        click.echo("✓ every event of the table follows the one before it in the whole store")
    click.echo("=== seals (the table stream vouching for its games) ===")
    for problem in verdict.seal_problems:
        click.echo(f"✗ {problem}")
    seals = verdict.seals
    if not verdict.seal_problems:
        signed = f", each signed by the site (keys {', '.join(sorted(keys)) or 'none'})" \
            if seals else ""
        click.echo(f"✓ {seals} hand(s) sealed{signed}, every seal matching its game")
    bad = bad or bool(verdict.store_problems or verdict.seal_problems or wrong_games)
    found = "PROBLEMS FOUND" if bad else "all fair"
    if wrong_games:
        found += f" in game{'s' if len(wrong_games) > 1 else ''} {', '.join(wrong_games)}"
    click.echo(f"table {table}, {len(verdict.games)} games: {checked} hand(s) checked, {found}")
    if bad:
        sys.exit(1)
    return True


def _verify_evidence(table: str | None, receipt: str | None, checkpoint: str | None,
                     whole_store: bool, keys_source: str | None) -> None:
    """--receipt, --checkpoint, --store: the stored record against what the site signed."""
    try:
        receipts = receipts_from(receipt) if receipt else []
        kept = checkpoint_from(checkpoint) if checkpoint else None
    except DocumentError as error:
        raise click.ClickException(str(error)) from None
    lines: list[str] = []

    def tell(name: str, problems: list[str], fine: str) -> bool:
        """Each problem as a ✗ line, or one ✓ line: whether anything is wrong."""
        lines.extend(f"✗ {name}: {problem}" for problem in problems)
        if not problems:
            lines.append(f"✓ {name}: {fine}")
        return bool(problems)

    async def check(store: EventStore) -> bool:
        keys = await _trusted_keys(store, keys_source)
        bad = False
        first = 1
        if table is not None:
            record = await load_table_record(store, table)
            verdict = verify_table(record, keys)
            first = min((e.position for e in record.every_event), default=1)
            if verdict.ok:
                lines.append(f"✓ table {table}: every stream as appended, every seal holds")
            else:
                bad = True
                for stream in verdict.streams:
                    lines.extend(f"✗ {stream.label}: {p}" for p in stream.problems)
                for one, game_verdict in verdict.games:
                    lines.extend(f"✗ game {one.number}: {p}" for p in game_verdict.problems)
                lines.extend(f"✗ {p}" for p in (*verdict.store_problems,
                                                *verdict.seal_problems))
        checked, on_the_way = await check_receipts(store, table or "", receipts, keys, first) \
            if receipts else ([], [])
        if on_the_way:
            bad = True
            lines.extend(f"✗ the store's chain: {p}" for p in on_the_way)
        for given, problems in checked:
            bad = tell(f"receipt for game {given.game} hand {given.hand}", problems,
                       f"signed by the site (key {given.key_id}); the stored record is what "
                       f"the player was given ({given.stream} version {given.version}, "
                       f"position {given.position})") or bad
        if kept is not None:
            problems, report = await check_checkpoint(
                store, kept, keys, None if table is None else first)
            bad = tell(f"checkpoint at position {kept.position}", problems,
                       f"signed {kept.signed_at} by key {kept.key_id}: the store reaches it; "
                       f"{report.events} events recomputed in {report.seconds * 1000:.0f} ms "
                       f"({report.per_second:,.0f} a second)") or bad
        if whole_store:
            report = await verify_whole_store(store)
            bad = tell("the whole store", report.problems,
                       f"{report.events} events, positions 1 to {report.last} without a gap, "
                       "every stream's chain and the global chain as appended "
                       f"({report.per_second:,.0f} events a second)") or bad
        return bad

    try:
        bad = _run_on_store(check)
    finally:
        for line in lines:
            click.echo(line)
    click.echo("PROBLEMS FOUND" if bad else "all as the site signed")
    if bad:
        sys.exit(1)


@replay_group.command("export")
@click.argument("table")
@click.option("--hand", type=click.IntRange(1), help="One finished hand (a hand record; "
              "with --evidence, that hand's evidence).")
@click.option("--game", type=click.IntRange(1), help="The game at the table (if it has several).")
@click.option("--evidence", is_flag=True,
              help="The evidence file anyone can check offline (docs/fairness.md): every "
                   "stream, the chain values, the receipts, the nearest checkpoint and the "
                   "site's keys; of the table, --game N, or --game N --hand N.")
def replay_export(table: str, hand: int | None, game: int | None, evidence: bool) -> None:
    """Write one finished hand's self-contained record (JSON) to standard output."""
    if evidence:
        async def export(store: EventStore) -> bytes:
            return encode_evidence(await export_evidence(store, table, game, hand))

        sys.stdout.buffer.write(_run_on_store(export))
        return
    if hand is None:
        raise click.UsageError("name the hand: --hand N (or --evidence for a whole table)")
    chosen = _one_game(table, _load_games(table, game), hand)
    try:
        record = export_hand(chosen.events, chosen.stream, hand)
    except RecordError as error:
        raise click.ClickException(str(error)) from None
    sys.stdout.buffer.write(encode_record(record))


@main.group("keys")
def keys_group() -> None:
    """The site's signing keys (docs/fairness.md, "The site's keys")."""


@keys_group.command("new")
@click.argument("file", type=click.Path(dir_okay=False, path_type=Path))
def keys_new(file: Path) -> None:
    """Make a new Ed25519 signing key in FILE (readable by its owner only).
    Point the setting signing_key_file at it and restart: that is a rotation."""
    if file.exists():
        raise click.ClickException(f"{file} exists: a key is never overwritten")
    key = SiteKey.load_or_create(file)
    click.echo(f"key {key.key_id}: public key {key.public_key.hex()}")


@keys_group.command("list")
def keys_list() -> None:
    """The site's public keys, as /.well-known/muggins-keys.json serves them."""
    async def listed(store: EventStore) -> list[SiteKeyInfo]:
        return await site_keys(store.pool)

    for key in _run_on_store(listed):
        click.echo(f"{key.key_id}  {key.public_key}  first used {key.first_used}")


@main.group("dispute")
def dispute_group() -> None:
    """Disputed hands: list them, read one with its verified record, resolve it."""


@dispute_group.command("list")
@click.option("--open", "only_open", is_flag=True, help="Only those not resolved yet.")
def dispute_list(only_open: bool) -> None:
    """Every dispute, oldest first: table, number, who, which hand, and its state."""
    async def listed(store: EventStore) -> list[DisputeView]:
        return await every_dispute(store.pool)

    shown = 0
    for dispute in _run_on_store(listed):
        if only_open and dispute.verdict is not None:
            continue
        state = "open" if dispute.verdict is None else f"{dispute.verdict} by {dispute.by}"
        click.echo(f"{dispute.table_id} #{dispute.dispute}  game {dispute.game} hand "
                   f"{dispute.hand}  {dispute.name} (seat {dispute.seat})  {state}  "
                   f"“{dispute.reason}”")
        shown += 1
    if not shown:
        click.echo("no disputes" if not only_open else "no open disputes")


@dispute_group.command("show")
@click.argument("table")
@click.argument("number", type=click.IntRange(1))
def dispute_show(table: str, number: int) -> None:
    """One dispute: the table verified whole, the disputed hand move by move
    (a person or a bot), the receipts and the checkpoints around it."""
    async def shown(store: EventStore) -> DisputeFile:
        try:
            return await dispute_file(store, table_id(table), number, run=asyncio.to_thread)
        except (Refusal, NoSuchTable) as error:
            raise click.ClickException(str(error)) from None

    for line in dispute_lines(_run_on_store(shown)):
        click.echo(line)


@dispute_group.command("resolve")
@click.argument("table")
@click.argument("number", type=click.IntRange(1))
@click.option("--verdict", type=click.Choice(["upheld", "rejected"]), required=True,
              help="upheld: the player was right; rejected: the record stands.")
@click.option("--note", required=True, help="What the player reads (up to 2,000 characters).")
@click.option("--by", "by", required=True, help="Your name, as the player will read it.")
def dispute_resolve(table: str, number: int, verdict: str, note: str, by: str) -> None:
    """Resolve a dispute: the verdict and the note become a table event."""
    async def resolved(store: EventStore) -> DisputeView:
        seating = Seating(PostgresSeatKeys(store.pool), store)
        disputes = Disputes(seating, Commands(store, seating, Timings(), BroadcastClock(),
                                              Wakeups()))
        try:
            checked = table_id(table)
            await disputes.resolve(checked, number, verdict,  # type: ignore[arg-type]
                                   note, by)
        except (Refusal, NoSuchTable) as error:
            raise click.ClickException(str(error)) from None
        views = await table_disputes(store, checked)
        return next(v for v in views if v.dispute == number)

    view = _run_on_store(resolved)
    click.echo(f"{view.table_id} #{view.dispute}: {view.verdict} by {view.by}: {view.note}")


@main.group("cluster")
@click.option("--dir", "directory", type=click.Path(file_okay=False), default=".muggins-cluster",
              show_default=True, help="Where the cluster keeps its data, logs and state.")
@click.pass_context
def cluster_group(context: click.Context, directory: str) -> None:
    """The whole site on this machine from real parts: PostgreSQL, three NATS
    servers, service replicas, a spectators' process, the projectors and HAProxy."""
    try:
        from muggins.cluster.local import ClusterError, LocalCluster
    except ImportError:  # an installed wheel: the supervisor is development tooling
        raise click.ClickException(
            "the local cluster is development tooling (deploy/tooling/): run it from a "
            "clone of the repository, `python3 deploy/cluster.py up`") from None

    try:
        context.obj = LocalCluster(Path(directory))
    except ClusterError as error:
        raise click.ClickException(str(error)) from None


@cluster_group.command("up")
@click.option("--port", type=click.IntRange(0, 65535), default=None,
              help="Where HAProxy listens, the site's address [8080; 0: any free port]. "
                   "Chosen at the first `up` and kept.")
@click.option("--replicas", type=click.IntRange(1, 16), default=None,
              help="Service replicas behind HAProxy [2]. Chosen at the first `up` and kept.")
@click.option("--set", "settings", multiple=True, metavar="NAME=VALUE",
              help="A setting for every muggins process, e.g. --set bot_delay=0.2.")
@click.pass_obj
def cluster_up(cluster: LocalCluster, port: int | None, replicas: int | None,
               settings: tuple[str, ...]) -> None:
    """Start the cluster (whatever of it is not running)."""
    from muggins.cluster.local import ClusterError

    extra: dict[str, str] = {}
    for item in settings:
        name, equals, value = item.partition("=")
        variable = environment_variable(name.strip())
        if not equals or variable not in ENVIRONMENT:
            raise click.BadParameter(f"{item!r}: not NAME=VALUE with a known setting",
                                     param_hint="--set")
        extra[variable] = value
    try:
        cluster.up(port=port, service_replicas=replicas, extra_settings=extra)
    except (ClusterError, EmbeddedServerError) as error:
        raise click.ClickException(f"{error}  (stop what started: muggins cluster down)") from None
    _print_cluster(cluster)
    click.echo(f"\nthe site: {cluster.url}   stop it: muggins cluster down")


@cluster_group.command("down")
@click.pass_obj
def cluster_down(cluster: LocalCluster) -> None:
    """Stop every process of the cluster (its data stays)."""
    cluster.down()
    click.echo("cluster stopped")


@cluster_group.command("status")
@click.pass_obj
def cluster_status(cluster: LocalCluster) -> None:
    """Each process: running, ready, its port and log."""
    from muggins.cluster.local import ClusterError

    try:
        _print_cluster(cluster)
    except ClusterError as error:
        raise click.ClickException(str(error)) from None


@cluster_group.command("kill")
@click.argument("name")
@click.pass_obj
def cluster_kill(cluster: LocalCluster, name: str) -> None:
    """Kill one process at once (SIGKILL), as a crash would."""
    _on_one(cluster, name, lambda: cluster.kill(name), "killed")


@cluster_group.command("start")
@click.argument("name")
@click.pass_obj
def cluster_start(cluster: LocalCluster, name: str) -> None:
    """Start one process again and wait until it is ready."""
    _on_one(cluster, name, lambda: cluster.start(name), "ready")


@cluster_group.command("restart")
@click.argument("name")
@click.pass_obj
def cluster_restart(cluster: LocalCluster, name: str) -> None:
    """Stop one process gracefully, start it again, wait until it is ready."""
    _on_one(cluster, name, lambda: cluster.restart(name), "restarted")


@cluster_group.command("roll")
@click.pass_obj
def cluster_roll(cluster: LocalCluster) -> None:
    """A rolling restart: every service replica, one after another."""
    from muggins.cluster.local import ClusterError

    try:
        for name in cluster.roll():
            click.echo(f"{name} restarted and ready")
    except ClusterError as error:
        raise click.ClickException(str(error)) from None


def _on_one(cluster: LocalCluster, name: str, action: Callable[[], None], done: str) -> None:
    from muggins.cluster.local import ClusterError

    try:
        action()
    except ClusterError as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"{name} {done}")


def _print_cluster(cluster: LocalCluster) -> None:
    from rich.console import Console
    from rich.table import Table

    table = Table("process", "kind", "running", "ready", "port", "pid",
                  caption=f"HAProxy's statistics: http://127.0.0.1:{cluster.stats_port}/ "
                          "(Prometheus: /metrics there)")
    for instance in cluster.instances():
        running = cluster.is_running(instance.name)
        ready = running and cluster.is_ready(instance.name)
        table.add_row(instance.name, instance.kind, "yes" if running else "[red]no[/red]",
                      "yes" if ready else "[red]no[/red]", str(instance.port or ""),
                      str(instance.pid or ""))
    Console().print(table)


if __name__ == "__main__":
    main()
