// The operators' page: every dispute, and one dispute with what settles it:
// the table verified whole, the disputed hand move by move (a person or a
// bot at each move), the expert's analysis, the receipts and the signed
// checkpoints around it; then the verdict and a note the player reads.
// /operator lists, /operator/{table}/{number} opens one.  The operator token
// (the setting operator_token) is kept for this tab only (sessionStorage).
import { api, el } from "./common.js";
import { refusalOf, t, translatePage } from "./i18n.js";

const $ = (id) => document.getElementById(id);
const TOKEN_KEY = "muggins.operator";
const [, , rawTable, rawNumber] = location.pathname.split("/");
const tableId = rawTable ? decodeURIComponent(rawTable) : null;
const number = rawNumber ? Number(rawNumber) : null;

function token() {
  return sessionStorage.getItem(TOKEN_KEY) || "";
}

function asOperator(path, options = {}) {
  return api(path, { ...options, headers: { Authorization: `Bearer ${token()}` } });
}

function stateText(dispute) {
  return dispute.verdict ? `${t(`evidence.${dispute.verdict}`)} · ${dispute.by}` : t("evidence.open");
}

async function showList() {
  const disputes = await asOperator("/operator/api/disputes");
  const shown = $("only-open").checked ? disputes.filter((d) => !d.verdict) : disputes;
  $("disputes").replaceChildren(...shown.map((d) => el("tr", { dataset: { table: d.table_id, dispute: String(d.dispute) } },
    el("td", {}, el("a", { href: `/operator/${encodeURIComponent(d.table_id)}/${d.dispute}` }, d.table_id)),
    el("td", {}, d.dispute),
    el("td", {}, t("operator.gameHand", { game: d.game, hand: d.hand })),
    el("td", {}, `${d.name} (${t("operator.seat", { seat: d.seat })})`),
    el("td", {}, d.reason),
    el("td", {}, stateText(d)))));
  if (!shown.length) $("disputes").replaceChildren(el("tr", {}, el("td", { colspan: "6", class: "muted" }, t("operator.none"))));
  $("list").hidden = false;
}

function showSummary(file) {
  const d = file.dispute;
  $("dispute-summary").replaceChildren(
    el("h2", {}, t("operator.disputeTitle", { n: d.dispute, table: d.table_id })),
    el("p", {}, t("evidence.disputeLine", { hand: d.hand, game: d.game, name: d.name, reason: d.reason })),
    el("p", { id: "dispute-state" }, el("strong", {}, stateText(d)), d.note ? ` — ${d.note}` : ""),
    el("p", {}, el("a", { href: file.replay_link, id: "replay-link" }, t("operator.replay"))));
}

function showVerification(file) {
  $("verification").replaceChildren(
    el("h2", {}, t("operator.verification")),
    el("p", { class: `verdict ${file.verified ? "fair" : "problems"}`, id: "verified", dataset: { verified: String(file.verified) } },
      file.verified ? t("operator.verified") : t("replay.problems")),
    el("ul", {}, ...file.findings.map((line) => el("li", {}, line))));
}

function showMoves(file) {
  const byWords = { person: t("operator.person"), bot: t("operator.bot"), table: t("operator.table.moves") };
  $("moves").replaceChildren(el("h2", {}, t("operator.moves")),
    ...file.hands.map((hand) => el("details", { open: hand.disputed, class: hand.disputed ? "disputed-hand" : null, dataset: { hand: String(hand.hand) } },
      el("summary", {}, t("operator.handLine", { hand: hand.hand, status: t(`operator.status.${hand.status}`) })),
      ...hand.problems.map((problem) => el("p", { class: "error" }, problem)),
      el("table", { class: "moves" },
        el("tbody", {}, ...hand.moves.map((move) => el("tr", { class: `by-${move.by}` },
          el("td", { class: "num" }, move.version),
          el("td", { class: "by" }, byWords[move.by] + (move.seat === null ? "" : ` · ${t("operator.seat", { seat: move.seat })}`)),
          el("td", {}, move.summary))))))));
}

async function showAnalysis(file) {
  const box = $("analysis");
  box.replaceChildren(el("h2", {}, t("analysis.title")), el("p", { class: "muted", id: "analysis-summary" }, t("analysis.thinking")));
  try {
    const analysis = await api(file.analysis_link);
    const costly = analysis.decisions.filter((d) => d.costly);
    const lost = analysis.decisions.reduce((sum, d) => sum + d.given_up, 0);
    $("analysis-summary").textContent = t("analysis.summary", { n: analysis.decisions.length, costly: costly.length, points: lost.toFixed(1) });
  } catch (problem) {
    $("analysis-summary").textContent = refusalOf(problem);
  }
}

function checkpointText(checkpoint) {
  return checkpoint ? t("operator.checkpoint", { position: checkpoint.position, at: checkpoint.signed_at, key: checkpoint.key_id }) : t("operator.noCheckpoint");
}

function keptClass(found) {
  if (!found.length) return "muted";
  return found[0] === "" ? "verdict fair" : "verdict problems";
}

function keptText(found) {
  if (!found.length) return t("operator.noKeptReceipt");
  return found[0] === "" ? t("operator.keptMatches") : found.join(" · ");
}

function showSigned(file) {
  const game = file.dispute.game;
  $("signed").replaceChildren(el("h2", {}, t("operator.signed")),
    el("h3", {}, t("operator.keptReceipt")),
    el("p", { id: "kept-receipt", class: keptClass(file.kept_receipt) }, keptText(file.kept_receipt)),
    el("h3", {}, t("operator.receipts")),
    el("ul", { id: "operator-receipts" }, ...file.receipts.filter((r) => r.game === game).map((r) => el("li", {},
      t("operator.receipt", { hand: r.hand, version: r.version, position: r.position, key: r.key_id })))),
    el("h3", {}, t("operator.checkpoints")),
    el("p", { id: "checkpoint-before" }, `${t("operator.before")}: ${checkpointText(file.checkpoint_before)}`),
    el("p", { id: "checkpoint-after" }, `${t("operator.after")}: ${checkpointText(file.checkpoint_after)}`));
}

function showResolve(file) {
  const box = $("resolve");
  if (file.dispute.verdict) {
    box.replaceChildren(el("h2", {}, t("operator.resolved")), el("p", {}, stateText(file.dispute)));
    return;
  }
  const error = el("p", { class: "error", role: "alert", hidden: true, id: "resolve-error" });
  const form = el("form", { id: "resolve-form" },
    el("fieldset", {}, el("legend", {}, t("operator.verdict")),
      el("label", {}, el("input", { type: "radio", name: "verdict", value: "rejected", required: true }), " ", t("evidence.rejected")),
      el("label", {}, el("input", { type: "radio", name: "verdict", value: "upheld" }), " ", t("evidence.upheld"))),
    el("label", { for: "resolve-note" }, t("operator.note")),
    el("textarea", { id: "resolve-note", rows: "4", maxlength: "2000", required: true }),
    el("label", { for: "resolve-by" }, t("operator.by")),
    el("input", { type: "text", id: "resolve-by", maxlength: "80", required: true }),
    error,
    el("button", { type: "submit", id: "resolve-send" }, t("operator.resolve")));
  form.addEventListener("submit", async (submitted) => {
    submitted.preventDefault();
    try {
      await asOperator(`/operator/api/disputes/${encodeURIComponent(tableId)}/${number}/resolve`, {
        method: "POST",
        body: JSON.stringify({ verdict: form.verdict.value, note: $("resolve-note").value, by: $("resolve-by").value }),
      });
    } catch (problem) {
      error.textContent = refusalOf(problem);
      error.hidden = false;
      return;
    }
    await showDispute();
  });
  box.replaceChildren(el("h2", {}, t("operator.resolve")), form);
}

async function showDispute() {
  const file = await asOperator(`/operator/api/disputes/${encodeURIComponent(tableId)}/${number}`);
  showSummary(file);
  showVerification(file);
  showMoves(file);
  showSigned(file);
  showResolve(file);
  $("dispute").hidden = false;
  showAnalysis(file);
}

async function show() {
  $("sign-in").hidden = true;
  try {
    if (tableId && number) await showDispute();
    else await showList();
  } catch (problem) {
    if (problem.code === "not-an-operator") {
      const tried = Boolean(token());
      sessionStorage.removeItem(TOKEN_KEY);
      $("sign-in-error").textContent = t("operator.wrongToken");
      $("sign-in-error").hidden = !tried;
      $("sign-in").hidden = false;
      return;
    }
    $("fatal").textContent = refusalOf(problem);
    $("fatal").hidden = false;
  }
}

function start() {
  translatePage(() => { if (token()) show(); });
  $("token-form").addEventListener("submit", (submitted) => {
    submitted.preventDefault();
    sessionStorage.setItem(TOKEN_KEY, $("operator-token").value);
    $("sign-in-error").hidden = true;
    show();
  });
  $("only-open").addEventListener("change", show);
  if (token()) show();
  else $("sign-in").hidden = false;
}

start();
