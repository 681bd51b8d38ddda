"""A flood of each costly request must cost the flooder, not the other tables.

Probes, the same in every run: PROBE_EXPERTS tables where a person plays an
expert bot (the expert's reply time: from the person's move to the bot's
next move, with no bot delay, so it is the expert's thinking plus the
service's own time), and PROBE_PAIRS tables of two people (their
command-to-broadcast time, as in ``bench service``).  One run with nobody
flooding, then one per flood, each on a fresh service process with the
default settings (no bot delay), the flooder in a process of its own from
20 loopback addresses of its own:

* **hints**: each address sits at a casual table of its own against a bot,
  and for every turn opens a new socket, asks a hint, plays it, closes;
* **analyses**: each address asks for the analysis of every finished hand
  of earlier bot games, as fast as it is answered;
* **chat**: each address watches a probe table and talks as fast as the
  socket lets it, coming back after each time it is sent away;
* **evidence**: each address asks for the evidence files of earlier bot
  games (each table whole, and each of its hands), as fast as it is answered.

Printed per run: the expert's reply p50 and p99, the players' p50 and p99,
what the flooder sent and got back, and for the chat the rows stored per
second.  The bars: with any one flood, the expert's reply p50 and the
players' p99 within 1.5 times the run without.

    python3 deploy/dev.py bench costly_floods
    MUGGINS_BENCH_SECONDS=20 python3 deploy/dev.py bench costly_floods
    MUGGINS_BENCH_FLOODS=hints python3 deploy/dev.py bench costly_floods

``--smoke``: every flood, 3 s a run, on one service process for all the
runs, one table of each kind of probe and one
bot game for the analyses and evidence (the analyses flood asks for its
first hand only, analysed before the flood); the probes must move with no
error, each flooder must send and be answered only as a flood is, and the
service must log no error; the bars not judged.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import random
import signal
import sys
import time
from collections import Counter
from collections.abc import Iterable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import asyncpg
import httpx
import websockets

from tests.benchmarks.bench_service import Stats, seat_player, service_process
from tests.benchmarks.common import SMOKE, bench_servers, bench_setting, messages_until, percentile
from tests.support.clients import loopback_http, loopback_transport, unpacked

SECONDS = float(bench_setting("SECONDS", "30", "3"))
FLOODS = bench_setting("FLOODS", "hints,analyses,chat,evidence",
                       "hints,analyses,chat,evidence").split(",")
PROBE_EXPERTS = int(bench_setting("PROBE_EXPERTS", "3", "1"))
PROBE_PAIRS = int(bench_setting("PROBE_PAIRS", "100", "1"))
#: Bot games played before the runs, whose hands the analysis flood asks about.
FINISHED_GAMES = int(bench_setting("FINISHED_GAMES", "12", "1"))
#: The flooder's addresses: loopback, none of them the probes' 127.0.0.1.
FLOOD_ADDRESSES = [f"127.0.0.{n}" for n in range(10, 30)]
#: The probes' addresses: each client its own, as people are, so that the
#: service runs with its default per-address limits (the flooder meets them).
PROBE_ADDRESSES = [f"127.0.1.{n}" for n in range(1, 255)]
#: How long a person at a probe table takes to play (as in bench service).
THINK = (0.3, 0.5)
#: The flooder's tally keys that count what it sent.
SENT = ("hints asked", "asked", "lines sent")
#: What the service may answer a flood of analyses or evidence (any other
#: status: the flooder asks for something that is not there).
FLOOD_ANSWERS = {"answered 200", "answered 429", "answered 503"}


@dataclass
class ExpertReplies:
    replies: list[float] = field(default_factory=list)
    errors: list[str] = field(default_factory=list)


async def person_against_expert(ws_url: str, table_id: str, token: str, replies: ExpertReplies,
                                until: float, rng: random.Random, address: str) -> None:
    """Play seat 0 against the expert: time from our move to the bot's next event."""
    async with websockets.connect(f"{ws_url}/tables/{table_id}/play", max_size=2**22,
                                  ping_interval=None, local_addr=(address, 0)) as ws:
        await ws.send(json.dumps({"type": "hello", "token": token}))
        moved_at: float | None = None
        planned = -1
        version = 0
        tasks: set[asyncio.Task[None]] = set()

        async def play_later(view: dict[str, Any], at_version: int) -> None:
            await asyncio.sleep(rng.uniform(*THINK))
            choice = view["legal"][0]
            await ws.send(json.dumps({"type": "play", "tile": choice["tile"],
                                      "end": choice["end"], "known_version": at_version}))

        async for message in messages_until(ws, until):
            kind = message["type"]
            if kind == "event":
                version = message["version"]
                event = message["event"]
                if event["type"] == "TilePlayed" and event.get("seat") == 0:
                    moved_at = time.perf_counter()
                elif message.get("by") == "bot" and moved_at is not None:
                    replies.replies.append((time.perf_counter() - moved_at) * 1000)
                    moved_at = None
            elif kind in ("welcome", "view"):
                version = message["version"]
                view = message.get("view")
                if view is None:
                    continue
                if view["phase"] == "game-over" and planned != -2:
                    planned = -2
                    await ws.send('{"type":"rematch"}')
                if (view["phase"] == "playing" and view["turn"] == 0 and view["legal"]
                        and planned != version):
                    planned = version
                    task = asyncio.create_task(play_later(view, version))
                    tasks.add(task)
                    task.add_done_callback(tasks.discard)
            elif kind == "game":
                planned, moved_at = -1, None
            elif kind == "error":
                replies.errors.append(message["code"])
        for task in tasks:
            task.cancel()


async def create(http: httpx.AsyncClient, spec: dict[str, Any]) -> str:
    answer = await http.post("/tables", json=spec)
    answer.raise_for_status()
    return str(answer.json()["table_id"])


async def sit(http: httpx.AsyncClient, table_id: str, seat: int, name: str) -> str:
    answer = await http.post(f"/tables/{table_id}/seats/{seat}", json={"name": name})
    answer.raise_for_status()
    return str(answer.json()["token"])


async def finished_hands(base_url: str, evidence: bool = False) -> list[str]:
    """Bot games played to the end now; the analysis path of each of their
    hands (or, with ``evidence``, each table's and each hand's evidence file)."""
    async with loopback_http(base_url=base_url, timeout=30) as http:
        ids = [await create(http, {"seats": 2, "bots": [{"seat": 0, "level": "greedy"},
                                                        {"seat": 1, "level": "greedy"}]})
               for _ in range(FINISHED_GAMES)]
        paths: list[str] = []
        for table_id in ids:
            for _ in range(600):
                view = await http.get(f"/tables/{table_id}/view")
                if view.status_code == 200 and view.json()["phase"] == "game-over":
                    break
                await asyncio.sleep(0.1)
            hand = 1
            if evidence:
                paths.append(f"/tables/{table_id}/evidence")
            while (await http.get(f"/tables/{table_id}/games/1/hands/{hand}/replay")
                   ).status_code == 200:
                paths.append(f"/tables/{table_id}/evidence?game=1&hand={hand}" if evidence
                             else f"/tables/{table_id}/games/1/hands/{hand}/analysis")
                hand += 1
    return paths


async def analysed(base_url: str, path: str) -> None:
    """Until the analysis at ``path`` is thought and kept."""
    async with loopback_http(base_url=base_url, timeout=300) as http:
        (await http.get(path)).raise_for_status()


@dataclass
class Probes:
    experts: ExpertReplies
    players: Stats


@dataclass
class ProbeTables:
    experts: list[tuple[str, str]]
    pairs: list[tuple[str, str, int]]


def probe_address(run: int, number: int) -> str:
    """The address of a run's probe table ``number``: each run its own, so
    that on a service shared by the runs (at smoke size) a run's probes
    never meet the per-address budgets an earlier run's spent."""
    return PROBE_ADDRESSES[(run * (PROBE_EXPERTS + PROBE_PAIRS) + number)
                           % len(PROBE_ADDRESSES)]


async def probe_tables(base_url: str, run: int) -> ProbeTables:
    expert_tables = []
    pairs = []
    for number in range(PROBE_EXPERTS + PROBE_PAIRS):
        address = probe_address(run, number)
        async with loopback_http(
                base_url=base_url, timeout=30,
                transport=loopback_transport(local_address=address)) as http:
            if number < PROBE_EXPERTS:
                table_id = await create(http, {"seats": 2,
                                               "bots": [{"seat": 1, "level": "expert"}]})
                expert_tables.append((table_id, await sit(http, table_id, 0, "Ana")))
                continue
            table_id = await create(http, {"seats": 2})
            for seat in (0, 1):
                pairs.append((table_id, await sit(http, table_id, seat, f"P{seat}"), seat))
    return ProbeTables(expert_tables, pairs)


async def run_probes(base_url: str, tables: ProbeTables, run: int) -> Probes:
    ws_url = base_url.replace("http", "ws", 1)
    experts, players = ExpertReplies(), Stats()
    expert_tables, pairs = tables.experts, tables.pairs
    until = time.monotonic() + SECONDS
    rng = random.Random(2026)
    await asyncio.gather(
        *(person_against_expert(ws_url, table_id, token, experts, until,
                                random.Random(rng.random()), probe_address(run, number))
          for number, (table_id, token) in enumerate(expert_tables)),
        *(seat_player(ws_url, table_id, token, seat, players, until,
                      random.Random(rng.random()),
                      local_address=probe_address(run, PROBE_EXPERTS + number // 2))
          for number, (table_id, token, seat) in enumerate(pairs)))
    return Probes(experts, players)


async def chat_rows(database_url: str) -> int:
    connection = await asyncpg.connect(database_url)
    try:
        return int(await connection.fetchval(
            "SELECT count(*) FROM events WHERE stream_id LIKE '%-chat'"))
    finally:
        await connection.close()


#: The default settings (the per-address limits among them), but no bot
#: delay: the expert's reply is then its thinking and the service's time.
#: At smoke size the expert thinks 20 ms, not 200: the same path, and a
#: tenth of the CPU (at 200 ms it kept a core busy through every run).
SERVICE_ARGUMENTS = ("--bot-delay", "0", "--hand-pause", "0",
                     *(["--expert-budget-ms", "20"] if SMOKE else []))


def logged_errors(lines: Iterable[str]) -> list[str]:
    """The error (or worse) lines and tracebacks among a service's log lines."""
    return [line for line in lines if '"level": "error"' in line
            or '"level": "critical"' in line or "Traceback" in line]


@dataclass
class SharedService:
    """The service process every run of a smoke run uses, and how far its
    log has been read: each run is told the errors logged while it ran."""

    url: str
    log: Path
    read_to: int = 0

    def new_errors(self) -> list[str]:
        """The errors among the whole lines logged since the last call."""
        with self.log.open("rb") as log:
            log.seek(self.read_to)
            written = log.read()
        whole = written[:written.rfind(b"\n") + 1]
        self.read_to += len(whole)
        return logged_errors(whole.decode(errors="replace").splitlines())


async def one_run(folder: Path, env: dict[str, str], flood: str | None, run: int,
                  shared: SharedService | None = None) -> tuple[Probes, Counter[str], float]:
    """One run: on a fresh service process, or at smoke size on ``shared``;
    the errors the service logged meanwhile are counted either way."""
    async with (contextlib.nullcontext(shared.url) if shared is not None
                else service_process(folder, env, f"run-{flood or 'none'}", *SERVICE_ARGUMENTS,
                                     quotas=True)) as base_url:
        assert base_url is not None
        flooder = None
        targets: list[str] = []
        if flood in ("analyses", "evidence"):
            targets = await finished_hands(base_url, evidence=flood == "evidence")
            if SMOKE and flood == "analyses":
                # An analysis thinks for seconds at the lowest priority (on a
                # busy machine, for longer than a smoke run): one hand,
                # analysed first, which the flood then reads until refused;
                # none is left thinking when the service stops (it would
                # cancel them, and log that).
                targets = targets[:1]
                await analysed(base_url, targets[0])
            print(f"{'':<16} {len(targets)} paths for the {flood} flood", flush=True)
        tables = await probe_tables(base_url, run)
        if flood == "chat":
            targets = sorted({table_id for table_id, _, _ in tables.pairs})
        if flood is not None:
            flooder = await asyncio.create_subprocess_exec(
                sys.executable, "-m", "tests.benchmarks.bench_costly_floods", "--flood",
                flood, base_url, str(SECONDS + 15), *targets,
                stdout=asyncio.subprocess.PIPE)
            assert flooder.stdout is not None
            ready = await asyncio.wait_for(flooder.stdout.readline(), 120)
            assert ready.strip() == b"flooding", ready
        rows_before = await chat_rows(env["MUGGINS_DATABASE_URL"])
        started = time.monotonic()
        probes = await run_probes(base_url, tables, run)
        rows = (await chat_rows(env["MUGGINS_DATABASE_URL"]) - rows_before) / max(
            1e-9, time.monotonic() - started)
        outcomes: Counter[str] = Counter()
        if flooder is not None and flooder.stdout is not None:
            flooder.send_signal(signal.SIGINT)
            outcomes = Counter(json.loads(await flooder.stdout.read() or b"{}"))
            await flooder.wait()
    errors = (shared.new_errors() if shared is not None else logged_errors(
        (folder / f"run-{flood or 'none'}.log").read_text().splitlines()))
    if errors:
        outcomes["service errors logged"] = len(errors)
        print("\n".join(errors[:5]), file=sys.stderr)
    return probes, outcomes, rows


# ---------------------------------------------------------------- the flooder


async def flood_hints(base_url: str, address: str, until: float, tally: Counter[str],
                      ready: asyncio.Event) -> None:
    """A casual table of this address's own (``ready`` once it is taken); for
    every turn a new socket asks a hint."""
    ws_url = base_url.replace("http", "ws", 1)
    async with loopback_http(base_url=base_url, timeout=30,
                             transport=loopback_transport(local_address=address)
                             ) as http:
        table_id = await create(http, {"seats": 2, "overrides": {"hints": True},
                                       "bots": [{"seat": 1, "level": "greedy"}]})
        token = await sit(http, table_id, 0, "Flood")
    ready.set()
    while time.monotonic() < until:
        try:
            async with websockets.connect(f"{ws_url}/tables/{table_id}/play",
                                          local_addr=(address, 0), ping_interval=None,
                                          max_size=2**22) as ws:
                await ws.send(json.dumps({"type": "hello", "token": token}))
                view: dict[str, Any] | None = None
                version = 0
                asked = False
                async for message in messages_until(ws, min(until, time.monotonic() + 10)):
                    kind = message["type"]
                    if kind in ("welcome", "view") and message.get("view") is not None:
                        view, version = message["view"], message["version"]
                        if view["phase"] == "game-over":
                            await ws.send('{"type":"rematch"}')
                        elif view["phase"] == "playing" and view["turn"] == 0 and not asked:
                            asked = True
                            await ws.send('{"type":"hint"}')
                            tally["hints asked"] += 1
                    elif kind == "hint" and view is not None:
                        tally["hints given"] += 1
                        await ws.send(json.dumps({"type": "play", "tile": message["tile"],
                                                  "end": message["end"],
                                                  "known_version": version}))
                        break
                    elif kind == "error" and asked:
                        tally[f"refused {message['code']}"] += 1
                        if view is not None and view["legal"]:
                            choice = view["legal"][0]
                            await ws.send(json.dumps({"type": "play", "tile": choice["tile"],
                                                      "end": choice["end"],
                                                      "known_version": version}))
                        break
        except (OSError, websockets.WebSocketException):
            tally["sockets refused"] += 1
            await asyncio.sleep(1.0)


async def flood_analyses(base_url: str, address: str, until: float, tally: Counter[str],
                         targets: list[str]) -> None:
    async with loopback_http(base_url=base_url, timeout=60,
                             transport=loopback_transport(local_address=address)
                             ) as http:
        order = targets[:]
        random.Random(address).shuffle(order)
        index = 0
        while time.monotonic() < until:
            path = order[index % len(order)]
            index += 1
            tally["asked"] += 1
            try:
                answer = await http.get(path)
                tally[f"answered {answer.status_code}"] += 1
            except httpx.HTTPError:
                tally["failed"] += 1


async def flood_chat(base_url: str, address: str, until: float, tally: Counter[str],
                     targets: list[str]) -> None:
    ws_url = base_url.replace("http", "ws", 1)
    table_id = targets[FLOOD_ADDRESSES.index(address) % len(targets)]
    while time.monotonic() < until:
        try:
            async with websockets.connect(f"{ws_url}/tables/{table_id}/watch",
                                          local_addr=(address, 0), ping_interval=None,
                                          max_size=2**22) as ws:
                async def drain() -> None:
                    with contextlib.suppress(websockets.ConnectionClosed):
                        async for raw in ws:
                            for message in unpacked(json.loads(raw)):
                                if message["type"] in ("chat", "error"):
                                    tally[f"got {message['type']}"] += 1

                reader = asyncio.create_task(drain())
                line = 0
                while time.monotonic() < until and not reader.done():
                    line += 1
                    await ws.send(json.dumps({"type": "chat", "text": f"spam {line}",
                                              "name": f"Spam{address}"}))
                    tally["lines sent"] += 1
                    await asyncio.sleep(0.05)
                reader.cancel()
                with contextlib.suppress(BaseException):
                    await reader
        except (OSError, websockets.WebSocketException):
            tally["sent away"] += 1
        await asyncio.sleep(1.0)


async def flood(kind: str, base_url: str, seconds: float, targets: list[str]) -> None:
    stop = asyncio.Event()
    asyncio.get_running_loop().add_signal_handler(signal.SIGINT, stop.set)
    until = time.monotonic() + seconds
    tally: Counter[str] = Counter()
    ready = [asyncio.Event() for _ in FLOOD_ADDRESSES]
    workers = [asyncio.create_task(
        flood_hints(base_url, address, until, tally, ready[n]) if kind == "hints"
        else flood_analyses(base_url, address, until, tally, targets)
        if kind in ("analyses", "evidence")
        else flood_chat(base_url, address, until, tally, targets))
        for n, address in enumerate(FLOOD_ADDRESSES)]
    if kind == "hints":
        # Its tables made and taken before it says so: the probes' run is
        # flooded from its first second (a short run could end before the
        # first hint on a busy machine).
        with contextlib.suppress(TimeoutError):
            await asyncio.wait_for(asyncio.gather(*(event.wait() for event in ready)), 60)
    print("flooding", flush=True)
    await asyncio.wait([asyncio.create_task(stop.wait()), *workers],
                       return_when=asyncio.FIRST_COMPLETED, timeout=seconds)
    for worker in workers:
        worker.cancel()
    await asyncio.gather(*workers, return_exceptions=True)
    print(json.dumps(tally), flush=True)


async def main() -> int:
    print(f"probes: {PROBE_EXPERTS} person-against-expert tables, {PROBE_PAIRS} tables of "
          f"two people; {SECONDS:.0f} s a run; floods: {', '.join(FLOODS)}", flush=True)
    rows: list[tuple[str, float, float]] = []
    broken: list[str] = []
    # At smoke size one set of servers and one service process serve every
    # run (nothing is judged that an earlier run's tables could sway, and
    # starting them was most of a smoke run's time: five service processes,
    # 42 s of a test worker).
    async with contextlib.AsyncExitStack() as shared:
        kept = shared.enter_context(bench_servers()) if SMOKE else None
        shared_service = None
        if kept is not None:
            shared_service = SharedService("", kept[0] / "run-smoke.log")

            def check_the_stop(service: SharedService) -> None:
                # Once the service has stopped, before its folder goes (the
                # stack unwinds in the opposite order): what it logged after
                # the last run, its shutdown.
                errors = service.new_errors()
                if errors:
                    print("\n".join(errors[:5]), file=sys.stderr)
                    broken.append(f"the shared service's stop ({len(errors)} errors logged)")

            shared.callback(check_the_stop, shared_service)
            shared_service.url = await shared.enter_async_context(service_process(
                kept[0], kept[1], "run-smoke", *SERVICE_ARGUMENTS, quotas=True))
        for run, flood_kind in enumerate([None, *FLOODS]):
            # Fresh servers for each run: a run's tables, left to their bots when
            # its clients go, would go on playing through the next run's.
            with contextlib.nullcontext(kept) if kept else bench_servers() as (folder, env):
                probes, outcomes, rows_per_second = await one_run(folder, env, flood_kind, run,
                                                                  shared_service)
                replies, players = probes.experts.replies, probes.players.latencies
                label = flood_kind or "nobody flooding"
                rows.append((label, percentile(replies, 0.5), percentile(players, 0.99)))
                print(f"{label:<16} expert replies: {len(replies):4}, p50 "
                      f"{percentile(replies, 0.5):6.1f} ms, p99 {percentile(replies, 0.99):6.1f}"
                      f" ms | players: {len(players):5} moves, p50 "
                      f"{percentile(players, 0.5):5.1f} ms, p99 {percentile(players, 0.99):6.1f}"
                      f" ms, errors {len(probes.players.errors) + len(probes.experts.errors)}"
                      f" | chat rows stored {rows_per_second:.2f}/s", flush=True)
                if outcomes:
                    print(f"{'':<16} flooder: {dict(sorted(outcomes.items()))}", flush=True)
                sent = sum(n for key, n in outcomes.items() if key in SENT)
                odd = sorted(key for key in outcomes
                             if key.startswith("answered ") and key not in FLOOD_ANSWERS)
                wrong = [what for what, count in (
                    ("no expert reply", not replies), ("no move of the players", not players),
                    ("errors", len(probes.players.errors) + len(probes.experts.errors)),
                    ("gaps", probes.players.gaps),
                    ("unconfirmed moves", probes.players.unconfirmed),
                    ("service errors logged", outcomes["service errors logged"]),
                    ("the flooder sent nothing", flood_kind is not None and not sent),
                    (f"the flooder was answered {', '.join(odd)}", odd),
                ) if count]
                if wrong:
                    broken.append(f"{label} ({', '.join(wrong)})")
    _, expert_base, players_base = rows[0]
    met = True
    for label, expert_p50, players_p99 in rows[1:]:
        expert_ratio = expert_p50 / max(expert_base, 1e-9)
        players_ratio = players_p99 / max(players_base, 1e-9)
        ok = expert_ratio <= 1.5 and players_ratio <= 1.5
        met = met and ok
        verdict = "not judged at smoke size" if SMOKE else "bar met" if ok else "BAR MISSED"
        print(f"{label:<16} expert p50 {expert_ratio:4.2f}x, players p99 {players_ratio:4.2f}x"
              f" the run without: {verdict}")
    if SMOKE:
        print("smoke run: ok" if not broken else f"SMOKE RUN BROKEN: {'; '.join(broken)}")
        return 1 if broken else 0
    return 0 if met else 1


if __name__ == "__main__":
    if sys.argv[1:2] == ["--flood"]:
        asyncio.run(flood(sys.argv[2], sys.argv[3], float(sys.argv[4]), sys.argv[5:]))
    else:
        sys.exit(asyncio.run(main()))
