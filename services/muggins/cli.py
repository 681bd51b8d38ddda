"""The ``muggins`` command.  Wiring only: each command parses its options,
calls into the library and prints."""

from __future__ import annotations

import asyncio
import secrets
import sys
from typing import get_args

import click
import msgspec

from muggins.bootstrap import start_embedded, stop_embedded
from muggins.bots import BOT_LEVELS, BotLevel
from muggins.bus.jetstream import connect, ensure_stream
from muggins.embedded import EmbeddedNats, EmbeddedPostgres, EmbeddedServerError
from muggins.eventstore.migrations import upgrade
from muggins.eventstore.store import StoreUnavailable, create_pool
from muggins.logs import configure_logging
from muggins.playbyplay import narrate
from muggins.rules.describe import PRESET_SUMMARIES, describe
from muggins.rules.errors import InvalidRuleset
from muggins.rules.events import event_encoder
from muggins.rules.presets import DEFAULT_PRESET, PRESETS, preset, seatings
from muggins.rules.ruleset import Ruleset
from muggins.rules.shuffle import game_seed_from_text
from muggins.selfplay import make_bots, play_game
from muggins.settings import Settings, SettingsError, load_settings


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


@main.command("up")
def up_command() -> None:
    """Start the embedded PostgreSQL and NATS (those not configured) and leave them running."""
    settings = _settings()

    async def start() -> tuple[str, str]:
        database_url, nats_url, _ = await start_embedded(settings)
        assert nats_url is not None
        pool = await create_pool(database_url)
        try:
            await upgrade(pool)
        finally:
            await pool.close()
        nc = await connect(nats_url)
        try:
            await ensure_stream(nc.jetstream())
        finally:
            await nc.drain()
        return database_url, nats_url

    try:
        database_url, nats_url = asyncio.run(start())
    except (EmbeddedServerError, StoreUnavailable, OSError) as error:
        raise click.ClickException(str(error)) from None
    click.echo(f"PostgreSQL  {database_url}")
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
        database_url, _, started = await start_embedded(settings, with_nats=False)
        try:
            pool = await create_pool(database_url)
            try:
                return await upgrade(pool)
            finally:
                await pool.close()
        finally:
            await stop_embedded(started)

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
def rules_command(
    preset_name: str | None, seats: int | None, partners: bool, as_json: bool
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
    for topic, sentence in describe(ruleset):
        click.echo(f"  {topic + ':':<13} {sentence}")


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
@click.option("--json", "as_json", is_flag=True, help="Print the events as JSON lines.")
def simulate_command(
    preset_name: str,
    seats: int,
    partners: bool,
    seed: str,
    games: int,
    bots: str,
    as_json: bool,
) -> None:
    """Bots play whole games; the same seed gives the same output, byte for byte."""
    ruleset = _ruleset(preset_name, seats, partners)
    levels = _bot_levels(bots, seats)
    out = sys.stdout
    for game_number in range(1, games + 1):
        game_seed = game_seed_from_text(f"{seed}/{game_number}")
        events = play_game(ruleset, game_seed, make_bots(levels, game_seed))
        if as_json:
            for event in events:
                out.write(event_encoder.encode(event).decode())
                out.write("\n")
        else:
            if games > 1:
                out.write(f"{'=' * 20} game {game_number} {'=' * 20}\n")
            for line in narrate(events):
                out.write(line + "\n")


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
    seed = secrets.token_hex(8)
    click.echo(f"seed {seed}: repeat this game with `muggins simulate --seed {seed}/1`")
    ruleset = _ruleset(preset_name, seats, partners)
    game_seed = game_seed_from_text(f"{seed}")
    for line in narrate(play_game(ruleset, game_seed, make_bots(["greedy"] * seats, game_seed))):
        click.echo(line)


if __name__ == "__main__":
    main()
