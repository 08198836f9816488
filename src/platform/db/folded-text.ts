/**
 * A message's text as the public API has always shown it: an email's subject,
 * a blank line, then its body (the way it was stored before migration 0038 kept
 * the subject apart). /v1 messages, lastMessage, the timeline and the agent's
 * transcript read this; the console shows the subject and the body apart.
 */
export const foldedText = (m: { text: string; subject?: string | null }): string =>
  m.subject ? `${m.subject}\n\n${m.text}` : m.text;
