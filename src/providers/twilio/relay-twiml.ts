import { xmlEscape } from './twiml.js';

/** TwiML of live calls (docs/voice.md). Every text and URL goes through xmlEscape. */

const PROLOG = '<?xml version="1.0" encoding="UTF-8"?>';

export interface RelayOptions {
  relayUrl: string;
  actionUrl: string;
  language: string;
  voice?: string;
  /** Spoken by ConversationRelay as soon as the call connects; omitted on an inbound call the agent greets itself. */
  welcomeGreeting?: string;
}

/** `<Connect action><ConversationRelay url .../></Connect>`: the call is the agent's until the session ends, then Twilio asks `actionUrl` what next. */
export function connectRelay(o: RelayOptions, prolog = false): string {
  const attrs = [
    `url="${xmlEscape(o.relayUrl)}"`,
    `language="${xmlEscape(o.language)}"`,
    ...(o.voice ? [`voice="${xmlEscape(o.voice)}"`] : []),
    ...(o.welcomeGreeting ? [`welcomeGreeting="${xmlEscape(o.welcomeGreeting)}"`] : []),
    'dtmfDetection="true"',
    'interruptible="any"',
  ];
  return `${prolog ? PROLOG : ''}<Response><Connect action="${xmlEscape(o.actionUrl)}"><ConversationRelay ${attrs.join(' ')}/></Connect></Response>`;
}

export const sayAndHangUp = (text: string, prolog = true): string =>
  `${prolog ? PROLOG : ''}<Response><Say>${xmlEscape(text)}</Say><Hangup/></Response>`;

export const HANG_UP = `${PROLOG}<Response><Hangup/></Response>`;

/** A warm transfer: dial the person; `whisperUrl` is played to them before the lead is put through. */
export function dialWithWhisper(number: string, whisperUrl: string, actionUrl: string, timeoutSeconds = 20): string {
  return `${PROLOG}<Response><Say>Please hold while I connect you.</Say><Dial action="${xmlEscape(actionUrl)}" timeout="${timeoutSeconds}"><Number url="${xmlEscape(whisperUrl)}">${xmlEscape(number)}</Number></Dial></Response>`;
}

/** What the person answering a transfer hears before the lead is connected. */
export const whisper = (summary: string): string =>
  `${PROLOG}<Response><Say>${xmlEscape(`Transfer from the AI assistant. ${summary}`)}</Say></Response>`;
