/**
 * The one opt-out / opt-in / help recogniser for every channel (sms, voice transcripts, email new text).
 * Pure: no I/O, no state. The FCC's 2024 TCPA revocation rule and CTIA require honouring any reasonable way
 * a person says stop, so when a message is both a request and something else, the stop wins.
 *
 * How it reads a message: the whole message, normalised and stripped of politeness, may be a keyword
 * ("Stop please" -> via 'keyword'); otherwise each sentence (split on punctuation and line breaks) is matched
 * against a table of plain-language requests (-> via 'phrase'). START / HELP count only as the whole message.
 * Everything is matched on normaliseForKeywords() text: lower case, no accents, no punctuation, single spaces,
 * and no invisible characters. A message that is only the stop-sign emoji (🛑) is a keyword stop too.
 */
import type { ChannelName } from '../lead-records/channels.js';

export interface CustomKeywords {
  optOut?: readonly string[];
  optIn?: readonly string[];
}
export type Recognition =
  | { kind: 'stop'; via: 'keyword' | 'phrase'; channels: ChannelName[] | 'all'; doNotContact: boolean }
  | { kind: 'start' }
  | { kind: 'help' }
  | { kind: 'none' };

/** The FCC / CTIA revocation words, Spanish equivalents, and the shorthand / misspellings people really send. */
export const BUILT_IN_OPT_OUT_KEYWORDS: readonly string[] = Object.freeze([
  'stop',
  'stopall',
  'stop all',
  'quit',
  'end',
  'revoke',
  'opt out',
  'optout',
  'cancel',
  'unsubscribe',
  'unsub',
  'unsuscribe',
  'unsubcribe',
  'baja',
  'alto',
  'para',
  'cancelar',
  'detener',
  'basta',
]);
/** CTIA's START / YES / UNSTOP; Spanish ALTA / COMENZAR. Not "si": it is also "if" and an everyday answer. */
export const BUILT_IN_OPT_IN_KEYWORDS: readonly string[] = Object.freeze([
  'start',
  'yes',
  'unstop',
  'alta',
  'comenzar',
]);
export const BUILT_IN_HELP_KEYWORDS: readonly string[] = Object.freeze(['help', 'info', 'ayuda']);

/** Keywords that are a stop even as one sentence of a longer message ("Stop. Who is this?"). The rest
 *  (end, quit, cancel, cancelar, detener) are everyday words ("Cancel. I'll rebook"), so only the whole message. */
const SENTENCE_KEYWORDS = [
  'stop',
  'stopall',
  'stop all',
  'unsubscribe',
  'unsub',
  'unsuscribe',
  'unsubcribe',
  'opt out',
  'optout',
  'revoke',
  'baja',
  'basta',
  'para',
  'alto',
];
/** Politeness and speech fillers that do not change what a short message means. */
const FILLERS = [
  'please',
  'pls',
  'plz',
  'plse',
  'thanks',
  'thank you',
  'thankyou',
  'thx',
  'ty',
  'now',
  'right now',
  'ok',
  'okay',
  'k',
  'just',
  'asap',
  'already',
  'immediately',
  'uh',
  'um',
  'umm',
  'hey',
  'hi',
  'hello',
  'sorry',
  'por favor',
  'porfa',
  'porfavor',
  'gracias',
  'ya',
  'hola',
  'ahora',
];

// Words are normalised first (letters, digits, single spaces), so they are safe inside a regex as they are, and
// every pattern is bounded by spaces / ends, so the order of alternatives does not matter.
const alt = (words: readonly string[]) => `(?:${words.join('|')})`;
const FILL = `(?: ${alt(FILLERS)})*`;
const FILLERS_RE = new RegExp(`(?<=^| )${alt(FILLERS)}(?= |$)`, 'g');

/**
 * Characters that show nothing: every format character (zero-width space, non-joiner and joiner, word joiner,
 * BOM, soft hyphen, the bidi marks, embeddings, overrides and isolates, ...) and the Hangul fillers. Inside a
 * word they would split it ("S\u200bTOP" -> "s top"), so they are removed before anything else, never spaced.
 */
const INVISIBLE = /[\p{Cf}\u115F\u1160\u3164\uFFA0]/gu;
export const withoutInvisibles = (text: string): string => text.replace(INVISIBLE, '');

/** A message that is only the stop-sign emoji (once or more, with variation selectors and white space): a stop. */
const STOP_SIGN_ONLY = /^[\s\uFE0E\uFE0F]*(?:\u{1F6D1}[\s\uFE0E\uFE0F]*)+$/u;

/** Lower case, NFKC, no accents / apostrophes / punctuation / emoji, "stooop" -> "stop", "s t o p" -> "stop", "stop stop" -> "stop". */
export function normaliseForKeywords(text: string): string {
  const words = withoutInvisibles(text)
    // Apostrophes, straight or curly (also acute / back quote, before NFKC splits the acute): "don’t" -> "dont";
    // censoring stars: "f***ing" -> "fing". Curly double quotes go with the rest of the punctuation below.
    .replace(/['\u2018\u2019\u201A\u201B\u2032\u00B4`*]/g, '')
    .normalize('NFKC')
    .toLowerCase()
    .normalize('NFD')
    .replace(/\p{M}/gu, '') // accents (and emoji variation selectors) off: "envíes" == "envies"
    .replace(/[^\p{L}\p{N}]+/gu, ' ') // punctuation, emoji, symbols, any whitespace -> one space
    .replace(/(\p{L})\1{2,}/gu, '$1') // "stoooppp" -> "stop"; no real English or Spanish word triples a letter
    .trim()
    .split(' ');
  const letter = (w: string | undefined) => w !== undefined && /^\p{L}$/u.test(w);
  const out: string[] = [];
  for (let i = 0; i < words.length; i++) {
    let w = words[i] as string;
    // Spelled-out letters, "S T O P" / "s.t.o.p": a run of three or more single letters is one word.
    if (letter(w) && letter(words[i + 1]) && letter(words[i + 2])) {
      while (letter(words[i + 1])) w += words[++i];
    }
    if (w !== out[out.length - 1]) out.push(w); // "STOP STOP" -> "stop"
  }
  return out.join(' ');
}

const stripFillers = (s: string) => s.replace(FILLERS_RE, '').replace(/ +/g, ' ').trim();
const clean = (words: readonly string[] = []) =>
  words
    .map(normaliseForKeywords)
    .map((w) => stripFillers(w) || w)
    .filter((w) => w !== '');
/** A whole message (after fillers are gone) that is only these words, repeated, optionally "I ..." / "... me". */
const wholeMessage = (words: readonly string[], object = '', subject = '') =>
  new RegExp(`^${subject}${alt(words)}(?: ${alt(words)})*${object}$`);
const SUBJECT = '(?:i |we )?'; // "I quit", "I revoke"
const OBJECT_ME = '(?: me| us)?'; // "Unsubscribe me"

// ---- Channel words: what a request names decides which channels it revokes -----------------------------
// Matched against " " + the request, so a leading space bounds every word.
const CHANNEL_WORDS: ReadonlyArray<[RegExp, ChannelName[] | 'written']> = [
  [/ (?:te?xts?|te?xting|te?xted|sms|textos?|textear\w*|texte\w*)(?= |$)/, ['sms']],
  [
    / (?:calls?|calling|called|ring|ringing|phone (?:me|us)|phoning|robocall\w*|voice ?mails?|llam\w*|marc\w*|marqu\w*)(?= |$)/,
    ['voice'],
  ],
  [/(?<!voice) (?:e ?mails?|e ?mailing|e ?mailed|mails?|correos?|newsletters?)(?= |$)/, ['email']], // not "voice mails"
  // A written message is a text, or also the email it arrived as (over-inclusive on purpose: both stop).
  [/ (?:messages?|messaging|messaged|msgs?|msging|mensaj\w*|escrib\w*)(?= |$)/, 'written'],
];
/** Requests about contact as such ("stop contacting me", "leave me alone", "unsubscribe me from all") mean every channel. */
const ALL_WORDS =
  / (?:contact\w*|bother\w*|harr?ass\w*|pester\w*|hassl\w*|bug|bugging|reach(?:ing)? out|all|everything|alone|molest\w*|acos\w*|fastidi\w*|paz)(?= |$)/;
const PHONE_WORDS = / (?:number|phone|cell|numero|telefono)(?= |$)/;

/** The channels a matched request names; 'all' for contact as such; null when it names none. */
function channelsNamed(request: string, arrivedBy: ChannelName): ChannelName[] | 'all' | null {
  const match = ` ${request}`;
  const found = new Set<ChannelName>();
  for (const [re, means] of CHANNEL_WORDS) {
    if (!re.test(match)) continue;
    if (means !== 'written') found.add(means[0] as ChannelName);
    else {
      found.add('sms');
      if (arrivedBy === 'email') found.add('email');
    }
  }
  if (found.size) return [...found];
  if (ALL_WORDS.test(match)) return 'all';
  return PHONE_WORDS.test(match) ? ['sms', 'voice'] : null; // "remove my number", "wrong number"
}

// ---- Plain-language requests ------------------------------------------------------------------------------
// Scope when the request names no channel: 'arrived' = the channel it came in on, 'all' = every channel,
// 'dnc' = every channel and do-not-contact. Negation: 'en' skips "don't (want you to) stop texting me",
// 'es' skips "no (quiero que) dejen de escribirme".
type Scope = 'arrived' | 'all' | 'dnc';
const NEG_EN = `(?<!(?:^| )(?:dont|do not|didnt|did not|doesnt|does not|never|not|wont|will not|wouldnt|cant|cannot|shouldnt|no need to)(?: (?:want|wanna|need|have|mean|meant|ask|asked|tell|told|expect|like|wish|say|said|you|u|yall|to|ever|really|i|me|them|please|just|even))* )`;
const NEG_ES = `(?<!(?:^| )(?:no|nunca|jamas)(?: (?:quiero|queremos|quisiera|deseo|que))* )`;
const INTENSIFIERS = `(?: (?:fucking|freaking|frigging|frickin|fricking|effing|fing|damn|damned|bloody|goddamn|just|please|pls|all|the|with|it|already|ever|uh|um|now))*`;
const GERUNDS =
  'te?xting|messaging|msging|calling|phoning|ringing|robocalling|e ?mailing|contacting|reaching out|bothering|harr?assing|spamming|bugging|pestering|hassling';
const PLURALS =
  'te?xts|text messages|sms|messages|msgs|calls|phone calls|robocalls|voice ?mails|e ?mails|mails|spam|junk|notifications|alerts|reminders|promotions|promos|offers|ads|marketing|newsletters';
const NOUNS = `${PLURALS}|te?xt|text message|message|msg|call|phone call|robocall|voice ?mail|e ?mail|mail|newsletter`;
const DETS = '(?: (?:these|this|them|those|that|any|more|your|the|all|so many|of))*';
const OBJECT = '(?:me|us|this number|my number|my phone|this phone|my cell|this email|my email)';
const LATER =
  '(?! (?:before|after|until|till|til|at(?! (?:this|my) (?:number|phone))|on|during|today|tonight|tomorrow|now|right now|this|between|in the|while|yet|later|for now)(?: |$))';
// "... from your text list", "... off all your lists": a tail ends in a list or a channel. "Take me off the waitlist",
// "opt out of the HOA", "the opt-out clause" (a determiner or noun that is not ours follows) are not about our messages.
const LIST_END = `(?:${NOUNS}|list|lists|database|system|records|registry|everything|all|these|this|them|it|here|thread|contacts|you|you guys)`;
const LIST_TAIL = `(?:(?: (?:from|off|of|out of|on|and|or|your|the|this|these|all|any|ur|my|our|mailing|contact|calling|marketing|${NOUNS}))* ${LIST_END})?(?! (?:the|a|an|his|her|their|that|of|from|clause|option|options|period|fee|fees|policy)(?: |$))`;
const ES_NOUNS =
  'mensajes?|mensajitos|textos?|sms|llamadas?|correos?|emails?|e mails?|informacion|promociones|publicidad';
const ES_LIST_WORDS = `(?: (?:de|del|su|sus|la|las|tu|tus|esta|este|el|los|lista|listas|base|datos|sistema|registro|contactos|difusion|${ES_NOUNS}))*`;
// Spanish verb forms (imperative, subjunctive, infinitive, gerund, with clitic): not "no me llamo Juan" (my name is).
const ES_WRITE_CALL =
  '(?:escrib(?:an|as|a|ir|irme|irnos|iendo)|llam(?:en|es|e|ar|arme|arnos|ando)|marqu(?:en|es|e)|marc(?:ar|arme|ando)|(?:contact|molest|texte|acos|fastidi)(?:en|es|e|ar|arme|arnos|ando))';

const PHRASES: ReadonlyArray<[string, Scope, ('en' | 'es')?]> = [
  // stop / quit texting, calling, contacting me; "stop texting and calling me"
  [`(?:stop|quit|cease|stp)${INTENSIFIERS} (?:${GERUNDS})(?: (?:and|or|n) (?:${GERUNDS}))*`, 'arrived', 'en'],
  // stop sending (me) these / texts, stop getting these -- but not "stop sending me listings in Brooklyn"
  [
    `(?:stop|quit|cease)${INTENSIFIERS} (?:sending(?: me| us)?|getting|receiving)(?:${DETS} (?:${NOUNS}|stuff|crap|shit)|(?: (?:these|this|them|those|that|stuff|crap|shit|anymore|again))*${FILL}$)`,
    'arrived',
    'en',
  ],
  // stop the texts, no more calls, enough with the emails -- but not "no more calls after 8", "can we stop the call here"
  [
    `(?:stop|quit|cease|no more|enough with|enough of)${INTENSIFIERS}${DETS} (?:${PLURALS})(?! (?:after|before|until|till|during|at|on|between|from|today|tonight|this (?:week|morning|afternoon|evening))(?: |$))`,
    'arrived',
    'en',
  ],
  [
    `stop (?:te?xt|e ?mail|message|msg)${FILL}$|(?:stop|end|quit) (?:this|these|them|those|that)${FILL}$|quit it${FILL}$|^no more${FILL}$|how (?:do|can) (?:i|we) (?:stop|end) (?:this|these|them|it)|make (?:this|these|it|them) stop`,
    'arrived',
    'en',
  ],
  // don't text me (again), do not call this number -- but not "don't call me before 5" / "don't call me now"
  [
    `(?:dont|do not)(?: ever)? (?:te?xt|message|msg|call|phone|ring|e ?mail|contact|reach out to|bother|bug|harr?ass|spam)(?: ${OBJECT}(?: (?:again|anymore|any more|ever again|ever|back))*${LATER}|(?: (?:again|anymore|back))?${FILL}$)`,
    'arrived',
  ],
  [
    `(?:dont|do not) send (?:me|us)(?: (?:any|more|anything|anymore|these|your))* (?:${NOUNS}|anything|anymore|any more)`,
    'arrived',
  ],
  // I don't want (any more) texts / to be contacted -- but not "I don't want the texts to stop"
  [
    `(?:dont|do not|no longer|never) (?:want|wanna|wish|need|like)(?: to)?(?: be)?(?: (?:receive|receiving|get|getting|keep getting|any|these|those|your|more|anymore|any more|the|all|this))* (?:${NOUNS}|contacted|called|te?xted|e ?mailed|messaged|bothered)(?! (?:to )?stop)`,
    'arrived',
  ],
  // remove me / delete my number / take me off your list / I want to be removed / lose my number
  [
    `(?:remove|delete|erase|unlist) (?:${OBJECT}|my (?:name|info|information|details|data|contact|contact info|phone number|email address|cell number))${LIST_TAIL}|^(?:(?:please|pls|plz|kindly|just) )*remove${FILL}$`,
    'all',
    'en',
  ],
  [`take (?:${OBJECT}|my name) (?:off|out of)(?! (?:hold|speaker|speakerphone|mute)(?: |$))${LIST_TAIL}`, 'all', 'en'],
  // "I'd like to be removed", "have my number removed" -- but not "can the carpet be removed"
  [
    `(?:(?:to|i|we|please|pls) (?:be|get)|(?:have|get|want|need) (?:me|us|my (?:number|name|email|info))) (?:removed|taken off|deleted|unsubscribed|opted out)${LIST_TAIL}|get (?:me |us )?off(?: (?:your|the|this|these|ur|all))+ ${LIST_END}|(?:lose|forget) (?:my|this) (?:number|email|contact|info)`,
    'all',
    'en',
  ],
  // unsubscribe / opt out anywhere ("how do I opt out", "unsubscribe me from texts"), unless negated
  [
    `(?:unsubscribe|unsubscribing|unsub|unsuscribe|unsubcribe|opt (?:me |us |myself )?out|optout|opting out)(?: (?:me|us))?${LIST_TAIL}|cancel(?:ar)?(?: (?:my|the|all|your|mi|la|las|los|mis))* (?:subscriptions?|suscripcion(?:es)?|te?xt alerts|${PLURALS}|mensajes|correos)`,
    'arrived',
    'en',
  ],
  // reiterating: "I already said stop", "I told you to stop" -- but not "he said to stop by"
  [
    `(?:said|replied|texted|wrote|sent|typed|answered|told (?:you|u)|asked (?:you|u))(?: to)? stop(?! by(?: |$))|(?:already|previously|i) (?:opted out|unsubscribed)(?! by)`,
    'arrived',
    'en',
  ],
  [
    `(?:revoke|revoking|withdraw|withdrawing|rescind|cancel)(?: (?:my|all|any|your))* (?:consent|permission|authori[sz]ation)(?: (?:to|for)(?: receive| be)? (?:${NOUNS}|contacted|called|te?xted|e ?mailed))?|(?:dont|do not|no longer) consent|(?:cease|stop|end|halt)(?: all)? (?:communications?|contact)|cease and desist`,
    'all',
    'en',
  ],
  // complaints are requests: "why do you keep texting me"
  [
    `why (?:do|does|are|r) (?:you|u|yall|they|you guys|you people) (?:keep|still|always)(?: on)? (?:${GERUNDS})`,
    'arrived',
  ],
  // consent disputes: sending on after "I never signed up" is contact without consent
  [
    `(?:never|didnt|did not) (?:sign(?:ed)? up|opt(?:ed)? in|subscribe[d]?|agree[d]?|gave (?:you )?(?:my )?(?:consent|permission|my number))(?:(?: (?:for|to|with))? (?:this|these|that|anything|any of this|you|your \\w+))?${FILL}$`,
    'arrived',
  ],
  [`leave (?:me|us) alone|(?:go away|get lost)${FILL}$|(?:fuck|fck|piss|bugger|eff|sod) off`, 'all', 'en'],
  // "wrong number, stop" -- but not "I gave you the wrong number, it's 555-0102"
  [
    `(?<!(?:i|we) (?:gave|give|sent|put|typed|entered|wrote|had|have|listed|used)(?: (?:you|u|yall))?(?: (?:the|a|my))? )wrong (?:number|person|guy|girl|lady|email)|(?:numero|persona) equivocad[oa]|se equivoco de (?:numero|persona)`,
    'arrived',
  ],
  // threats are requests: "if you keep texting me", "if you don't stop I'll report you", "if you call me again"
  [
    `(?:if|unless) (?:you|u|yall) (?:(?:dont|do not) )?(?:stop|quit)(?! by)|(?:if|unless) (?:you|u|yall) (?:(?:keep|continue)(?: to| on)? (?:${GERUNDS}|te?xt|call|e ?mail|message|contact)|(?:te?xt|call|e ?mail|message|contact) (?:me|us) again)`,
    'arrived',
  ],
  // STOP at the end of a sentence after a word that can only lead into it ("wrong number stop", "can you please stop")
  [
    `(?:(?:can|could|would|will) (?:you|u)|(?:want|wanna|need|like) (?:you|u|yall) to|i said|just|please|pls|no|nope|yes|yeah|so|seriously|omg|wtf|dude|man|god|number|(?:not )?interested|again)(?: (?:just|please|pls|plz))* stop(?: it)?${FILL}$`,
    'arrived',
    'en',
  ],
  // STOP opening a sentence that cannot be "stop by" / "stop sign": "stop I'm not interested", "stop who is this"
  [`^stop (?:im|i am|not|no|nope|who|wrong|i never|never|i didnt|i dont|i do not|i said|enough)(?= |$)`, 'arrived'],
  // DNC: "put me on your do not call list", "never contact me again", "nunca me contacten" -- not "you never call me back"
  [
    `(?:do not|dont|no) (?:call|contact|text|solicit)(?: list| registry| register)|dnc(?: list)?|(?<!(?:you|u|they|he|she|yall) )never (?:ever )?(?:again )?(?:contact|call|te?xt|message|msg|e ?mail|bother|reach out to) ${OBJECT}(?! back)${LATER}|(?:dont|do not) (?:you )?ever (?:contact|call|te?xt|message|e ?mail|bother) ${OBJECT}(?! back)|nunca (?:mas )?(?:me |nos )?(?:vuelvan a )?${ES_WRITE_CALL}|no (?:me |nos )?(?:vuelvan a )?${ES_WRITE_CALL} (?:nunca|jamas)|lista de no (?:llamar|contactar|molestar)`,
    'dnc',
  ],
  // Spanish: no me escriban / no me llamen (más) -- but not "no me llames ahora"
  [
    `no (?:me |nos )?(?:vuelvan? a |vuelvas a |sigan |sigas )?${ES_WRITE_CALL}(?! (?:ahora|hoy|manana|antes|despues|hasta|en|a las|a la|al|a mi|por la|esta|este|todavia|aun|luego|tan|tarde|temprano)(?: |$))`,
    'all',
  ],
  [
    `no (?:(?:me |nos )(?:envi|mand)\\w*|envien|manden|envies|mandes)(?: (?:mas|nada|ningun|ninguna|otro|otros|estos|estas|esos|esas|sus|tus|los|las))*(?: (?:${ES_NOUNS}|nada|mas)|${FILL}$)`,
    'arrived',
  ],
  [
    `no (?:quiero|queremos|deseo|necesito|me interesa recibir)(?: recibir)?(?: (?:mas|sus|tus|estos|estas|ningun|ninguna|que me|que nos|sigan|vuelvan a))* (?:${ES_NOUNS}|${ES_WRITE_CALL}|envi\\w*|mand\\w*)|no mas (?:${ES_NOUNS})`,
    'arrived',
  ],
  [
    `(?:dejen|deja|deje|dejes|dejar|paren|para|pare|parar)(?: ya)? de (?:${ES_WRITE_CALL}|envi\\w*|mand\\w*)`,
    'arrived',
    'es',
  ],
  [
    `(?:darme|dar|denme|den|doy|dame|deme|darnos|darse) de baja|(?:quiero|solicito|pido|deseo|quisiera) (?:la |mi |una )?baja`,
    'arrived',
    'es',
  ],
  [
    `(?:borr|quit|saqu|sac|elimin)(?:en|a|e|ar)(?:me|nos)${ES_LIST_WORDS}|(?:borr|quit|saqu|sac|elimin)(?:en|a|e|ar) (?:mi|mis) (?:numero|datos|nombre|correo|telefono|contacto|informacion)|(?:dejenme|dejame|dejeme|dejanos|dejennos) en paz`,
    'all',
  ],
];
const PHRASE_RES = PHRASES.map(([src, scope, neg]) => ({
  re: new RegExp(`(?<=^| )${neg === 'en' ? NEG_EN : neg === 'es' ? NEG_ES : ''}(?:${src})(?= |$)`),
  scope,
}));

const SENTENCE_KEYWORD_RE = wholeMessage(SENTENCE_KEYWORDS, '(?: me| us| it)?', SUBJECT);
const STOP_ALL_RE = /(?:^| )(?:stopall|stop all)(?= |$)/;
const SEGMENT_BREAK =
  /[.!?;:,\n\r\u2026\u00A1\u00BF\u3002\uFF01\uFF1F\uFF1B\uFF0C\u2022|()[\]{}"\u201C\u201D\u00AB\u00BB\u2013\u2014]+|\s-+\s|\p{Extended_Pictographic}+/u;

const inOrder = (set: Set<ChannelName>): ChannelName[] =>
  (['sms', 'voice', 'email'] as const).filter((c) => set.has(c));
/** What a request that names no channel revokes, by its scope ('dnc' always means every channel). */
const UNNAMED: Record<Scope, (arrivedBy: ChannelName) => ChannelName[] | 'all'> = {
  arrived: (c) => [c],
  all: () => 'all',
  dnc: () => 'all',
};

export function recognise(message: string, arrivedBy: ChannelName, custom: CustomKeywords = {}): Recognition {
  // Invisible characters go first, so that they can neither split a word nor make a segment break.
  const text = withoutInvisibles(message);
  const whole = normaliseForKeywords(text);
  const bare = stripFillers(whole);
  // Custom words add to the built-ins (never replace them); an optIn word equal to an opt-out word is moot: stop is checked first.
  const optOut = wholeMessage([...BUILT_IN_OPT_OUT_KEYWORDS, ...clean(custom.optOut)], OBJECT_ME, SUBJECT);
  if (optOut.test(bare) || optOut.test(whole) || STOP_SIGN_ONLY.test(text)) {
    return {
      kind: 'stop',
      via: 'keyword',
      channels: STOP_ALL_RE.test(bare) ? 'all' : [arrivedBy],
      doNotContact: false,
    };
  }

  let all = false;
  let doNotContact = false;
  const channels = new Set<ChannelName>();
  for (const segment of text.split(SEGMENT_BREAK).map(normaliseForKeywords)) {
    if (SENTENCE_KEYWORD_RE.test(stripFillers(segment))) {
      if (STOP_ALL_RE.test(segment)) all = true;
      else channels.add(arrivedBy);
    }
    for (const { re, scope } of PHRASE_RES) {
      const m = re.exec(segment);
      if (!m) continue;
      if (scope === 'dnc') doNotContact = true;
      const revoked = (scope === 'dnc' ? null : channelsNamed(m[0], arrivedBy)) ?? UNNAMED[scope](arrivedBy);
      if (revoked === 'all') all = true;
      else for (const c of revoked) channels.add(c);
    }
  }
  if (all || channels.size)
    return { kind: 'stop', via: 'phrase', channels: all ? 'all' : inOrder(channels), doNotContact };

  const optIn = wholeMessage([...BUILT_IN_OPT_IN_KEYWORDS, ...clean(custom.optIn)]);
  if (optIn.test(bare) || optIn.test(whole)) return { kind: 'start' };
  if (wholeMessage(BUILT_IN_HELP_KEYWORDS).test(bare)) return { kind: 'help' };
  return { kind: 'none' };
}
