/** TwiML, the XML Twilio executes on a call or answers a webhook with. Every text goes through xmlEscape. */

export const TWIML_CONTENT_TYPE = 'text/xml; charset=utf-8';

const XML_ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;', '"': '&quot;', "'": '&apos;' };

/** Escapes text and attribute values; drops characters XML 1.0 cannot carry at all (Twilio would reject the document). */
export function xmlEscape(text: string): string {
  return (
    text
      .replace(/[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g, '')
      // biome-ignore lint/style/noNonNullAssertion: the regex matches only the five characters XML_ENTITIES maps
      .replace(/[&<>"']/g, (c) => XML_ENTITIES[c]!)
  );
}

const PROLOG = '<?xml version="1.0" encoding="UTF-8"?>';

/**
 * The answer to an inbound SMS or a status callback: do nothing. Our replies go
 * out through the compliance gate and the REST API, never as inline TwiML.
 */
export const EMPTY_RESPONSE = `${PROLOG}<Response/>`;

/** The end of a call in which the lead asked not to be called again: acknowledged, then ended at once. */
export const OPTED_OUT_HANG_UP = `${PROLOG}<Response><Say>Understood. We will not call you again. Goodbye.</Say><Hangup/></Response>`;

/**
 * The end of a recorded call (say, gather one answer) once the lead has answered. Only the gather webhook
 * (twilio.routes.ts) answers it, for a recorded call an earlier version placed; it goes with that route.
 */
export const THANK_AND_HANG_UP = `${PROLOG}<Response><Say>Thank you. Goodbye.</Say><Hangup/></Response>`;
