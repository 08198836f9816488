import type { ChannelName } from '../subscriptions/channels.js';

/** Carrier keywords (CTIA): one word, any case, surrounding spaces (and a trailing !/.) ignored. */
const STOP = new Set(['STOP', 'STOPALL', 'UNSUBSCRIBE', 'CANCEL', 'END', 'QUIT', 'REVOKE', 'OPTOUT']);
const START = new Set(['START', 'YES', 'UNSTOP']);
const HELP = new Set(['HELP', 'INFO']);

export type Keyword = 'stop' | 'start' | 'help';

export function keywordOf(text: string): Keyword | null {
  const word = text.trim().replace(/[.!]+$/, '').toUpperCase();
  if (!/^[A-Z]+$/.test(word)) return null;
  if (STOP.has(word)) return 'stop';
  if (START.has(word)) return 'start';
  if (HELP.has(word)) return 'help';
  return null;
}

export interface OptOutIntent {
  /** Channels the lead asked us to stop using; 'all' for every channel they can receive. */
  channels: ChannelName[] | 'all';
  /** "never contact me": the phone goes on the Do Not Contact list too. */
  doNotContact: boolean;
}

const normalise = (text: string) => text.toLowerCase().replace(/[’`]/g, "'").replace(/\s+/g, ' ').trim();

const NEVER = /\b(never (contact|call|text|message|email) me|(do not|don't|dont) (ever )?contact me (ever|again)|(add|put) me (on|to) (your|the) (do not|don't) (call|contact) list)\b/;
const EVERYTHING = /\b(stop contacting me|(do not|don't|dont) contact me|remove me from (all )?(your|the) (list|lists)|take me off (all )?(your|the) (list|lists)|leave me alone|opt me out|stop all (messages|contact))\b/;
const SMS = /\b(stop (texting|messaging) me|(do not|don't|dont) (text|message) me|no more (texts|text messages|messages)|stop sending (me )?(texts|messages|text messages))\b/;
const VOICE = /\b(stop calling( me)?|(do not|don't|dont) call( me)?|no more (calls|phone calls))\b/;
const EMAIL = /\b(stop (emailing|e-mailing) me|(do not|don't|dont) (email|e-mail) me|no more (emails|e-mails)|unsubscribe me from (your )?(emails|e-mails|mailing list))\b/;
const GENERIC = /\b(unsubscribe( me)?|please stop|stop it|remove me)\b/;

/**
 * Plain-language opt-outs in any channel. Deliberately conservative: a clear
 * request to stop is honoured on the channels it names, a vague one on the
 * channel it arrived by; anything else goes to the conversation.
 */
export function optOutIntentOf(text: string, arrivedBy: ChannelName): OptOutIntent | null {
  const t = normalise(text);
  if (NEVER.test(t)) return { channels: 'all', doNotContact: true };
  if (EVERYTHING.test(t)) return { channels: 'all', doNotContact: false };
  const channels: ChannelName[] = [];
  if (SMS.test(t)) channels.push('sms');
  if (VOICE.test(t)) channels.push('voice');
  if (EMAIL.test(t)) channels.push('email');
  if (channels.length > 0) return { channels, doNotContact: false };
  if (GENERIC.test(t)) return { channels: [arrivedBy], doNotContact: false };
  return null;
}
