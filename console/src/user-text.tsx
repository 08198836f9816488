/**
 * Text that came from a lead or a user (names, messages, notes, fields):
 * shown isolated from the page's own direction, with the characters that
 * show nothing made visible.
 *
 * Bidirectional controls can reorder what is displayed: a name
 * `acct 1234 \u202E5678` would show as `acct 1234 8765`. Every format
 * character (bidi embeddings, overrides, isolates and marks, zero-width
 * characters, soft hyphen, BOM, ...) and every control character other than
 * a line break or tab is shown as a marker such as `⟨U+202E⟩` instead of
 * acting, and the whole text sits in a `<bdi>` (`unicode-bidi: isolate`), so
 * right-to-left text in it cannot reorder the text around it either.
 */
const HIDDEN = /[\p{Cf}\u0000-\u0008\u000B-\u001F\u007F-\u009F\u115F\u1160\u3164\uFFA0]/gu;

const marker = (c: string) => `⟨U+${c.codePointAt(0)!.toString(16).toUpperCase().padStart(4, '0')}⟩`;

/** The text with every invisible or control character replaced by its marker: for places that take a string (titles, labels). */
export const visibleText = (text: string): string => text.replace(HIDDEN, marker);

export function UserText({ text, class: className }: { text: string | null | undefined; class?: string }) {
  const value = text ?? '';
  const parts: (string | { marker: string })[] = [];
  let last = 0;
  for (const m of value.matchAll(HIDDEN)) {
    if (m.index > last) parts.push(value.slice(last, m.index));
    parts.push({ marker: marker(m[0]) });
    last = m.index + m[0].length;
  }
  if (last < value.length) parts.push(value.slice(last));
  return (
    <bdi class={className ? `user-text ${className}` : 'user-text'}>
      {parts.map((p, i) =>
        typeof p === 'string' ? (
          p
        ) : (
          <span key={i} class="hidden-char" title="invisible character">
            {p.marker}
          </span>
        ),
      )}
    </bdi>
  );
}
