// Receipts and disputes on the page (docs/fairness.md, "Receipts", "Disputes").
//
// Every seat is sent a signed receipt for each hand as it ends; the page keeps
// them in the browser (localStorage, per table) and offers them for download,
// one hand or all.  A seated player may dispute a finished hand with a short
// reason; the table's disputes and their resolutions are shown to everyone.
import { api, el } from "./common.js";
import { refusalOf, t } from "./i18n.js";

const REASON_MAX = 500;
const receiptsKey = (tableId) => `muggins.receipts.${tableId}`;

// The receipts this browser keeps for a table, oldest first.
export function keptReceipts(tableId) {
  try {
    const kept = JSON.parse(localStorage.getItem(receiptsKey(tableId)) || "[]");
    return Array.isArray(kept) ? kept : [];
  } catch {
    return [];
  }
}

// Keep ``receipts`` beside those kept already (one per game and hand: the first stands).
export function keepReceipts(tableId, receipts) {
  const kept = keptReceipts(tableId);
  const known = new Set(kept.map((r) => `${r.game}/${r.hand}`));
  for (const receipt of receipts) {
    if (receipt.format !== "muggins-receipt" || receipt.table !== tableId) continue;
    if (known.has(`${receipt.game}/${receipt.hand}`)) continue;
    kept.push(receipt);
    known.add(`${receipt.game}/${receipt.hand}`);
  }
  kept.sort((a, b) => a.game - b.game || a.hand - b.hand);
  try {
    localStorage.setItem(receiptsKey(tableId), JSON.stringify(kept));
  } catch {
    // storage full or off: the server still has them (/tables/{id}/receipts)
  }
  return kept;
}

function download(name, value) {
  const blob = new Blob([`${JSON.stringify(value, null, 2)}\n`], { type: "application/json" });
  const link = el("a", { href: URL.createObjectURL(blob), download: name, hidden: true });
  document.body.append(link);
  link.click();
  setTimeout(() => { URL.revokeObjectURL(link.href); link.remove(); }, 1000);
}

// The receipts kept here (given on the socket as each hand ended), else the
// server's as it has them now (a spectator, another browser): those are
// downloaded but never kept as what this browser was given.
async function receiptsOf(tableId) {
  const kept = keptReceipts(tableId);
  if (kept.length) return kept;
  return api(`/tables/${encodeURIComponent(tableId)}/receipts`);
}

export async function downloadAllReceipts(tableId) {
  download(`muggins-${tableId}-receipts.json`, await receiptsOf(tableId));
}

export async function downloadReceipt(tableId, game, hand) {
  let receipt = keptReceipts(tableId).find((r) => r.game === game && r.hand === hand);
  if (!receipt) {
    const served = await api(`/tables/${encodeURIComponent(tableId)}/receipts`);
    receipt = served.find((r) => r.game === game && r.hand === hand);
  }
  if (receipt) download(`muggins-${tableId}-g${game}-h${hand}-receipt.json`, receipt);
  return Boolean(receipt);
}

// A button that downloads one hand's receipt.
export function receiptButton(tableId, game, hand) {
  const button = el("button", { type: "button", class: "secondary small", id: "download-receipt" }, t("evidence.downloadOne"));
  button.addEventListener("click", async () => {
    if (!(await downloadReceipt(tableId, game, hand).catch(() => false))) button.textContent = t("evidence.notYet");
  });
  return button;
}

const REFUSALS = {
  "bad-token": "evidence.onlyPlayers",
  "already-disputed": "evidence.already",
  "no-such-hand": "evidence.notOver",
};

// A dialog to dispute hand ``hand`` of game ``game`` with the seat's token.
export function openDisputeDialog(tableId, token, game, hand, onSent) {
  document.getElementById("dispute-dialog")?.remove();
  const reason = el("textarea", { id: "dispute-reason", maxlength: String(REASON_MAX), rows: "4", required: true });
  const error = el("p", { class: "error", role: "alert", id: "dispute-error", hidden: true });
  const dialog = el("dialog", { id: "dispute-dialog", "aria-labelledby": "dispute-title" },
    el("h2", { id: "dispute-title" }, t("evidence.disputeTitle", { hand, game })),
    el("p", { class: "muted" }, t("evidence.disputeAbout")),
    el("form", { id: "dispute-form" },
      el("label", { for: "dispute-reason" }, t("evidence.reason")),
      reason, error,
      el("div", { class: "dialog-buttons" },
        el("button", { type: "submit", id: "dispute-send" }, t("evidence.send")),
        el("button", { type: "button", class: "secondary", id: "dispute-cancel", onclick: () => dialog.close() }, t("evidence.cancel")))));
  dialog.querySelector("form").addEventListener("submit", async (submitted) => {
    submitted.preventDefault();
    error.hidden = true;
    try {
      // The receipt this browser was given for the hand goes with the
      // dispute: the operator holds the record to it.
      const receipt = keptReceipts(tableId).find((r) => r.game === game && r.hand === hand) ?? null;
      await api(`/tables/${encodeURIComponent(tableId)}/disputes`, {
        method: "POST", body: JSON.stringify({ token, game, hand, reason: reason.value, receipt }),
      });
    } catch (problem) {
      const words = REFUSALS[problem.code];
      error.textContent = words ? t(words) : refusalOf(problem);
      error.hidden = false;
      return;
    }
    dialog.close();
    onSent?.();
  });
  dialog.addEventListener("close", () => dialog.remove());
  document.body.append(dialog);
  dialog.showModal();
  reason.focus();
}

function verdictText(dispute) {
  if (!dispute.verdict) return [el("strong", {}, t("evidence.open"))];
  return [el("strong", {}, t("evidence.resolution", { verdict: t(`evidence.${dispute.verdict}`), by: dispute.by })), " ", dispute.note];
}

// The table's disputes, each with its state, into ``container``.
export async function renderDisputes(container, tableId) {
  let disputes = [];
  try {
    disputes = await api(`/tables/${encodeURIComponent(tableId)}/disputes`);
  } catch {
    return;
  }
  container.replaceChildren(...disputes.map((d) => el("li", { class: d.verdict ? `dispute ${d.verdict}` : "dispute open", dataset: { dispute: String(d.dispute) } },
    el("span", {}, t("evidence.disputeLine", { hand: d.hand, game: d.game, name: d.name, reason: d.reason })),
    el("br"),
    ...verdictText(d))));
  container.closest("section")?.toggleAttribute("data-disputes", disputes.length > 0);
}

// The fairness card: what fair play means here in plain words (the guide's
// answer a link away), the receipts kept (download; what they are folded
// for those who want it) and the table's disputes.
export function fairnessCard(card, tableId, guide = null) {
  const count = el("span", { id: "receipt-count" });
  const refresh = () => { count.textContent = t("evidence.receipts", { n: keptReceipts(tableId).length }); };
  refresh();
  const list = el("ul", { class: "disputes", id: "disputes" });
  card.replaceChildren(
    el("h2", {}, t("evidence.title")),
    el("p", { class: "fair-plain" }, t("fair.sealedAlways"), guide ? " " : null,
      guide ? el("a", { href: guide, id: "fair-how-card" }, t("fair.how")) : null),
    el("p", {}, count, " ",
      el("button", { type: "button", class: "secondary small", id: "download-receipts", onclick: () => downloadAllReceipts(tableId).then(refresh).catch(() => {}) }, t("evidence.downloadAll"))),
    el("details", { class: "fair-details" },
      el("summary", {}, t("evidence.receiptsWhat")),
      el("p", { class: "muted" }, t("evidence.receiptsAbout"))),
    el("h3", {}, t("evidence.disputes")),
    list);
  renderDisputes(list, tableId);
  return { refresh, disputes: () => renderDisputes(list, tableId) };
}
