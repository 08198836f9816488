/**
 * The new text an email reply adds: quoted history and signatures removed, so the opt-out recogniser reads
 * only what the lead wrote now. A reply that quotes our own footer ("To stop receiving these emails, reply STOP
 * or unsubscribe: <link>") must not be heard as a STOP.
 *
 * Why `email-reply-parser`: a maintained port (Crisp) of GitHub's email_reply_parser, used on about a million
 * emails a day; it knows many clients' and locales' quote headers ("On ... wrote:", "El ... escribió:",
 * "-----Original Message-----", "From: Name <a@b>") and signatures ("-- ", "Sent from my iPhone"), and is pure JS
 * with no native dependency (re2 is an optional peer it falls back from). `planer` (Mailgun's talon port) is the
 * other candidate, but its HTML path needs a DOM; we read the text/plain part.
 *
 * Small pre-steps cover forms the library misses (each checked in test/compliance/email-reply.test.ts):
 * - Outlook's header block when the sender has no "<address>" ("From: Parley Homes / Sent: ..."), its bold
 *   "*From:*" form, and Spanish Outlook ("De: / Enviado:", "-----Mensaje original-----"): cut there, as the
 *   library would; Outlook never quotes with ">", so everything below is history.
 * - Gmail's "On <date> <name> <address> wrote:" wrapped over three or more lines, or with no blank line before
 *   it: joined into one line after a blank line, which the library then recognises. Not cut ourselves, so a
 *   reply written below the quote (bottom-posting) is still kept.
 * - Our own footer line, wherever it survives (a client that quotes without any header): removed.
 *
 * A size guard: inbound bodies are untrusted, and without the optional re2 engine several of the library's
 * quote-header regexes backtrack polynomially over the whole body (measured here: 8 KB of "abc. d e skrev f" lines
 * took 1 s and 64 KB took minutes; one 12 KB line of " on at" took 19 s). So the library only ever sees a bounded
 * text: a large body first loses its ">"-quoted lines (history) and attribution lines; if it is still too large,
 * it is not given to the library at all (signatures then stay in, which can only add words, never hide a STOP).
 */
import EmailReplyParser from 'email-reply-parser';

const OUTLOOK_FROM = /^\s*[*_]{0,2}(?:From|De|Von|Da)[*_]{0,2}\s*:/i;
const OUTLOOK_SENT = /^\s*[*_]{0,2}(?:Sent|Date|Enviado|Fecha|Gesendet)[*_]{0,2}\s*:/i;
const ORIGINAL_MESSAGE =
  /^\s*-{2,}\s*(?:Original Message|Mensaje original|Message d'origine|Ursprüngliche Nachricht)\s*-{2,}\s*$/i;
const QUOTE_HEADER_START = /^\s*(?:On|El)\s/;
const QUOTE_HEADER_END = /(?:wrote|escribió|escribio)\s*:\s*$/i;
// The footer Parley's own emails carry (channels/email.ts `emailBody`), in its current and earlier wording.
const OUR_FOOTER = /^[> \t]*To stop receiving these emails, (?:reply STOP or )?unsubscribe.*$/gim;
const QUOTED = /^\s*>/;
const MAX_PARSED_CHARS = 4000; // worst case measured ~0.15 s
const MAX_PARSED_LINE = 1000;
const fitsParser = (lines: readonly string[]) =>
  lines.reduce((n, l) => n + l.length + 1, 0) <= MAX_PARSED_CHARS && lines.every((l) => l.length <= MAX_PARSED_LINE);

/** Index of the first line of an Outlook-style history block, or -1. */
function outlookHistoryStart(lines: readonly string[]): number {
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (ORIGINAL_MESSAGE.test(line)) return i;
    // (Outlook's line of underscores above the block is a signature separator to the library.)
    if (OUTLOOK_FROM.test(line) && lines.slice(i + 1, i + 5).some((l) => OUTLOOK_SENT.test(l))) return i;
  }
  return -1;
}

/** "On Mon, Jan 1, 2026 at 9:00 AM\nParley Homes\n<a@b> wrote:" -> one line, with a blank line before it. */
function joinQuoteHeaders(lines: string[], attributions: Set<number>): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    let end = -1;
    if (QUOTE_HEADER_START.test(line)) {
      for (let j = i; j < Math.min(lines.length, i + 4); j++)
        if (QUOTE_HEADER_END.test(lines[j] ?? '')) {
          end = j;
          break;
        }
    }
    const header =
      end < 0
        ? ''
        : lines
            .slice(i, end + 1)
            .map((l) => l.trim())
            .join(' ');
    if (!/\d/.test(header)) {
      out.push(line);
      continue;
    } // a real header carries a date; "On Monday my wife wrote:" does not
    if (out.length > 0 && (out[out.length - 1] ?? '').trim() !== '') out.push('');
    attributions.add(out.length);
    out.push(header);
    i = end;
  }
  return out;
}

/** Large bodies only: drop ">" history and attributions ourselves; an attribution over unquoted history ends the reply. */
function withoutHistory(lines: readonly string[], attributions: ReadonlySet<number>): string[] {
  const out: string[] = [];
  for (let i = 0; i < lines.length; i++) {
    const line = lines[i] ?? '';
    if (attributions.has(i)) {
      let next = i + 1;
      while (next < lines.length && (lines[next] ?? '').trim() === '') next++;
      if (next < lines.length && !QUOTED.test(lines[next] ?? '')) break;
    } else if (!QUOTED.test(line)) out.push(line);
  }
  return out;
}

export function newTextOfReply(body: string): string {
  let lines = body.replace(/\r\n?/g, '\n').split('\n');
  const history = outlookHistoryStart(lines);
  if (history >= 0) lines = lines.slice(0, history);
  const attributions = new Set<number>();
  lines = joinQuoteHeaders(lines, attributions);
  if (!fitsParser(lines)) lines = withoutHistory(lines, attributions);
  const text = lines.join('\n').replace(OUR_FOOTER, '');
  return fitsParser(text.split('\n')) ? new EmailReplyParser().parseReply(text).trim() : text.trim();
}
