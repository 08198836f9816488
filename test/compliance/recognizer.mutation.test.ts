import { describe, expect, it } from 'vitest';
import {
  BUILT_IN_HELP_KEYWORDS,
  BUILT_IN_OPT_IN_KEYWORDS,
  BUILT_IN_OPT_OUT_KEYWORDS,
  normaliseForKeywords,
  recognise,
  type CustomKeywords,
  type Recognition,
} from '../../src/compliance/opt-out-recognizer.js';
import type { ChannelName } from '../../src/lead-records/channels.js';

/**
 * Exact answers for the recogniser, one table row per rule it has: each
 * keyword list entry, each filler, each plain-language request row, each
 * channel word and each negation. The labelled corpus (recognizer.test.ts)
 * says how well it reads real messages; this file pins down what every part
 * of it does, so a change to any one of them fails here, fast (it is the
 * first file the mutation run executes, see vitest.mutation.config.ts).
 * Plain data and loops, no properties: every case is cheap.
 */

type Want = ChannelName[] | 'all';
const CHANNELS: ChannelName[] = ['sms', 'voice', 'email'];
const NONE: Recognition = { kind: 'none' };
const START: Recognition = { kind: 'start' };
const HELP: Recognition = { kind: 'help' };
const keyword = (channels: Want): Recognition => ({ kind: 'stop', via: 'keyword', channels, doNotContact: false });
const phrase = (channels: Want, doNotContact = false): Recognition => ({
  kind: 'stop',
  via: 'phrase',
  channels,
  doNotContact,
});

/** Check a table of [text, arrived by, expected] and report every mismatch at once. */
function expectAll(rows: ReadonlyArray<readonly [string, ChannelName, Recognition, CustomKeywords?]>): void {
  const wrong = rows
    .map(([text, by, want, custom]) => ({ text, by, want, got: recognise(text, by, custom) }))
    .filter(({ want, got }) => JSON.stringify(got) !== JSON.stringify(want))
    .map(
      ({ text, by, want, got }) =>
        `${JSON.stringify(text)} by ${by}: ${JSON.stringify(got)}, want ${JSON.stringify(want)}`,
    );
  expect(wrong).toEqual([]);
}

describe('normaliseForKeywords, exactly', () => {
  it('maps each input to exactly this text', () => {
    const table: [string, string][] = [
      ['STOP', 'stop'],
      ['Stop!!!', 'stop'],
      ['stop, stop. STOP', 'stop'],
      ['a, b', 'a b'],
      ['opt-out', 'opt out'],
      ['a+b', 'a b'],
      ['Call at 1000!', 'call at 1000'],
      ['No me envíes', 'no me envies'],
      ['ÉSTE', 'este'],
      ['don’t', 'dont'],
      ["don't", 'dont'],
      ['don`t', 'dont'],
      ['don´t', 'dont'],
      ['f***ing', 'fing'],
      ['Ｓｔｏｐ', 'stop'],
      ['stooooppp', 'stop'],
      ['see all', 'see all'],
      ['S T O P', 'stop'],
      ['s.t.o.p', 'stop'],
      ['S T O P now', 'stop now'],
      ['a b', 'a b'],
      ['a b c', 'abc'],
      ['a b cd', 'a b cd'],
      ['ab c d', 'ab c d'],
      ['1 a b', '1 a b'],
      ['a b 1', 'a b 1'],
      ['go to a b', 'go to a b'],
      ['x y z w', 'xyzw'],
      ['I am', 'i am'],
      ['stop stop stop please', 'stop please'],
      ['stop please stop', 'stop please stop'],
      ['  hello   there  ', 'hello there'],
      ['', ''],
      ['🛑', ''],
    ];
    const wrong = table
      .filter(([input, want]) => normaliseForKeywords(input) !== want)
      .map(
        ([input, want]) =>
          `${JSON.stringify(input)} -> ${JSON.stringify(normaliseForKeywords(input))}, want ${JSON.stringify(want)}`,
      );
    expect(wrong).toEqual([]);
  });
});

describe('keywords', () => {
  it('lists exactly the built-in words', () => {
    expect([...BUILT_IN_OPT_OUT_KEYWORDS]).toEqual([
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
    expect([...BUILT_IN_OPT_IN_KEYWORDS]).toEqual(['start', 'yes', 'unstop', 'alta', 'comenzar']);
    expect([...BUILT_IN_HELP_KEYWORDS]).toEqual(['help', 'info', 'ayuda']);
  });

  it('each built-in opt-out word alone, upper case, with politeness, "I ..." or "... me" is a keyword stop on the channel it came by', () => {
    const rows: [string, ChannelName, Recognition][] = [];
    for (const kw of BUILT_IN_OPT_OUT_KEYWORDS) {
      const want = (c: ChannelName) => keyword(kw === 'stopall' || kw === 'stop all' ? 'all' : [c]);
      rows.push(
        [kw, 'sms', want('sms')],
        [kw.toUpperCase(), 'voice', want('voice')],
        [`${kw} please`, 'email', want('email')],
      );
      rows.push(
        [`I ${kw}`, 'sms', want('sms')],
        [`${kw} me`, 'voice', want('voice')],
        [`we ${kw} us`, 'email', want('email')],
      );
    }
    expectAll(rows);
  });

  it('each built-in opt-in and help word alone is START / HELP, and nothing more', () => {
    const rows: [string, ChannelName, Recognition][] = [];
    for (const kw of BUILT_IN_OPT_IN_KEYWORDS)
      rows.push(
        [kw, 'sms', START],
        [`${kw.toUpperCase()} ${kw}!`, 'email', START],
        [`please ${kw}`, 'voice', START],
        [`${kw} me`, 'sms', NONE],
        [`i ${kw}`, 'sms', NONE],
      );
    for (const kw of BUILT_IN_HELP_KEYWORDS)
      rows.push(
        [kw, 'sms', HELP],
        [`${kw}?? thanks`, 'voice', HELP],
        [`${kw} ${kw}`, 'email', HELP],
        [`${kw} me`, 'sms', NONE],
      );
    expectAll(rows);
  });

  it('nothing, punctuation, politeness alone and everyday text are none', () => {
    const rows: [string, ChannelName, Recognition][] = [];
    for (const text of [
      '',
      ' ',
      '⛔',
      '!!!',
      'please',
      'thanks. please!',
      'ok. thanks!',
      'me',
      'i',
      'it',
      'us',
      'Stryker was here',
      'undefined',
      'hello there',
      'what time?',
      'see you at 5. thanks.',
    ]) {
      for (const c of CHANNELS) rows.push([text, c, NONE]);
    }
    expectAll(rows);
  });

  it('the stop-sign emoji alone is a keyword stop; invisible characters are removed, never spaced', () => {
    const rows: [string, ChannelName, Recognition][] = [];
    for (const c of CHANNELS) {
      for (const text of [
        '🛑',
        '🛑\uFE0F',
        ' 🛑 🛑 ',
        '\u200B🛑',
        'S\u200BTOP',
        'ST\u00ADOP',
        '\u202ESTOP',
        'S\u2060T\uFEFFOP',
      ])
        rows.push([text, c, keyword([c])]);
      for (const text of ['🛑 sign', 'a 🛑', '🛑🙂']) rows.push([text, c, NONE]);
    }
    expectAll(rows);
  });

  it('every filler is stripped around a keyword, START and HELP', () => {
    const fillers = [
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
    const rows: [string, ChannelName, Recognition][] = [];
    for (const f of fillers) {
      rows.push(
        [`stop ${f}`, 'sms', keyword(['sms'])],
        [`${f} quit`, 'voice', keyword(['voice'])],
        [`${f} cancel ${f}`, 'email', keyword(['email'])],
      );
      rows.push([`${f} start`, 'sms', START], [`info ${f}`, 'sms', HELP], [f, 'sms', NONE]);
    }
    // Fillers go wherever they are, all of them, and leave single spaces.
    rows.push(
      ['please stop please', 'sms', keyword(['sms'])],
      ['stop please all', 'sms', keyword('all')],
      ['unsubscribe please me', 'voice', keyword(['voice'])],
    );
    rows.push(['i please quit', 'sms', keyword(['sms'])], ['please i quit now', 'email', keyword(['email'])]);
    expectAll(rows);
  });

  it('only stop all / stopall mean every channel', () => {
    expectAll([
      ['stop all', 'sms', keyword('all')],
      ['STOPALL', 'voice', keyword('all')],
      ['stop all please', 'email', keyword('all')],
      ['stop', 'email', keyword(['email'])],
      ['stop me', 'sms', keyword(['sms'])],
      ['Who is this? Stop all.', 'voice', phrase('all')],
      ['Who is this? stopall', 'voice', phrase('all')],
      ['Who is this? Stop.', 'voice', phrase(['voice'])],
    ]);
  });

  it('the strong keywords count as one sentence of a longer message; the everyday ones only as the whole message', () => {
    const rows: [string, ChannelName, Recognition][] = [];
    for (const kw of [
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
    ]) {
      const all = kw === 'stopall' || kw === 'stop all';
      rows.push([`Who is this? ${kw}.`, 'email', phrase(all ? 'all' : ['email'])]);
      rows.push([`Hi. I ${kw} it, thanks`, 'sms', phrase(all ? 'all' : ['sms'])]);
    }
    for (const kw of ['end', 'quit', 'cancel', 'cancelar', 'detener']) rows.push([`Who is this? ${kw}.`, 'sms', NONE]);
    expectAll(rows);
  });
});

describe('organization keywords', () => {
  it('add to the built-ins, normalised like them, and empty ones are ignored', () => {
    expectAll([
      ['ARRÊT', 'sms', keyword(['sms']), { optOut: ['Arrêt'] }],
      ['please halt', 'voice', keyword(['voice']), { optOut: ['HALT NOW'] }],
      ['halt now', 'voice', keyword(['voice']), { optOut: ['HALT NOW'] }],
      ['now', 'sms', keyword(['sms']), { optOut: ['now'] }],
      ['now', 'sms', NONE, { optOut: [] }],
      ['ok', 'sms', START, { optIn: ['OK'] }],
      ['sign me up', 'email', START, { optIn: ['Sign me up!'] }],
      ['sign me up for the tour', 'email', NONE, { optIn: ['Sign me up!'] }],
      ['suscribeme', 'sms', START, { optIn: ['Suscríbeme'] }],
      ['stop', 'sms', keyword(['sms']), { optIn: ['stop'] }],
      ['', 'sms', NONE, { optOut: ['', '  ', '!!!'], optIn: ['', '?'] }],
      ['hello', 'sms', NONE, { optOut: ['', '  ', '!!!'], optIn: ['', '?'] }],
      ['true', 'sms', NONE, { optOut: ['halt'], optIn: ['go'] }],
      ['undefined', 'sms', NONE, { optOut: ['halt'], optIn: ['go'] }],
      ['Stryker was here', 'sms', NONE, {}],
      ['Stryker was here', 'sms', NONE, { optIn: ['go'] }],
      ['Stryker was here', 'sms', NONE, { optOut: ['halt'] }],
      ['x', 'sms', NONE, { optOut: ['.*'] }],
      ['a b', 'sms', keyword(['sms']), { optOut: ['a+b'] }],
      ['start', 'sms', START, { optIn: ['go'] }],
    ]);
  });
});

describe('plain-language requests, row by row', () => {
  it('recognises each request and revokes exactly the channels it names', () => {
    expectAll([
      // stop / quit texting, calling, contacting
      ['stop texting me', 'email', phrase(['sms'])],
      ['quit calling me', 'sms', phrase(['voice'])],
      ['cease emailing me', 'sms', phrase(['email'])],
      ['stp messaging me', 'voice', phrase(['sms'])],
      ['stop fucking texting me', 'voice', phrase(['sms'])],
      ['stop texting and calling me', 'email', phrase(['sms', 'voice'])],
      ['stop txting me', 'voice', phrase(['sms'])],
      ['stop robocalling me', 'sms', phrase(['voice'])],
      ['stop contacting me', 'sms', phrase('all')],
      ['stop bothering me', 'sms', phrase('all')],
      ['stop harassing me', 'sms', phrase('all')],
      ['stop harrassing me', 'sms', phrase('all')],
      ['stop pestering me', 'sms', phrase('all')],
      ['stop hassling me', 'sms', phrase('all')],
      ['stop bugging me', 'sms', phrase('all')],
      ['stop reaching out to me', 'sms', phrase('all')],
      ['stop spamming me', 'voice', phrase(['voice'])],
      // stop sending / getting
      ['stop sending me these', 'voice', phrase(['voice'])],
      ['stop sending these texts', 'voice', phrase(['sms'])],
      ['quit sending me this crap', 'email', phrase(['email'])],
      ['stop getting these', 'sms', phrase(['sms'])],
      // stop the texts, no more calls, enough with the emails
      ['stop these texts', 'voice', phrase(['sms'])],
      ['no more texts', 'voice', phrase(['sms'])],
      ['no more txts', 'voice', phrase(['sms'])],
      ['no more sms', 'voice', phrase(['sms'])],
      ['no more calls', 'sms', phrase(['voice'])],
      ['no more voicemails', 'sms', phrase(['voice'])],
      ['no more emails', 'sms', phrase(['email'])],
      ['no more newsletters', 'sms', phrase(['email'])],
      ['no more messages', 'voice', phrase(['sms'])],
      ['no more messages', 'email', phrase(['sms', 'email'])],
      ['enough with the emails', 'sms', phrase(['email'])],
      ['no more promotions', 'sms', phrase(['sms'])],
      // stop text, stop this, quit it, no more, how do I stop this, make it stop
      ['stop text', 'voice', phrase(['sms'])],
      ['stop msg', 'voice', phrase(['sms'])],
      ['stop this please', 'email', phrase(['email'])],
      ['quit it', 'voice', phrase(['voice'])],
      ['no more', 'sms', phrase(['sms'])],
      ['how do i stop this', 'sms', phrase(['sms'])],
      ['make it stop', 'voice', phrase(['voice'])],
      // don't text me
      ["don't text me", 'voice', phrase(['sms'])],
      ["don't call me", 'sms', phrase(['voice'])],
      ["don't ring me", 'sms', phrase(['voice'])],
      ["don't email me", 'sms', phrase(['email'])],
      ["don't message me", 'voice', phrase(['sms'])],
      ["don't reach out to me", 'sms', phrase('all')],
      ["don't text again", 'sms', phrase(['sms'])],
      ["No don't text me", 'voice', phrase(['sms'])], // a Spanish negation does not guard an English request
      ['do not call this number again', 'voice', phrase(['voice'])],
      // don't send me
      ["don't send me voicemail", 'sms', phrase(['voice'])],
      ["don't send me mail", 'sms', phrase(['email'])],
      ["don't send me anything", 'voice', phrase(['voice'])],
      // I don't want
      ["I don't want any more texts", 'voice', phrase(['sms'])],
      ["I don't want to be txted", 'voice', phrase(['sms'])],
      ["I don't want to be emailed", 'sms', phrase(['email'])],
      ["I don't want your newsletter", 'sms', phrase(['email'])],
      ['i no longer wish to be contacted', 'sms', phrase('all')],
      // remove me
      ['remove me from your list', 'sms', phrase('all')],
      ['remove me from your text list', 'voice', phrase(['sms'])],
      ['remove my number', 'email', phrase(['sms', 'voice'])],
      ['remove my email', 'sms', phrase(['email'])],
      ['delete my info', 'voice', phrase('all')],
      ['please remove', 'voice', phrase('all')],
      // take me off
      ['take me off your list', 'sms', phrase('all')],
      ['take my name off the list', 'voice', phrase('all')],
      ['take me off your calling list', 'sms', phrase(['voice'])],
      // removed / get off / lose my number
      ["I'd like to be removed", 'sms', phrase('all')],
      ['have my number removed', 'email', phrase(['sms', 'voice'])],
      ['get me off your list', 'sms', phrase('all')],
      ['lose my number', 'email', phrase(['sms', 'voice'])],
      ['forget my email', 'sms', phrase(['email'])],
      // unsubscribe / opt out / cancel
      ['how do I opt out', 'voice', phrase(['voice'])],
      ['unsubscribe me from texts and emails', 'voice', phrase(['sms', 'email'])],
      ['unsubscribe me from everything', 'sms', phrase('all')],
      ['opting out of texts', 'voice', phrase(['sms'])],
      ['cancel my subscription', 'email', phrase(['email'])],
      ['cancel the text alerts', 'voice', phrase(['sms'])],
      // reiterating
      ['I texted stop', 'voice', phrase(['sms'])],
      ['I told you to stop', 'sms', phrase(['sms'])],
      ['I already opted out', 'voice', phrase(['voice'])],
      ['I previously unsubscribed', 'email', phrase(['email'])],
      // consent
      ['I revoke my consent', 'sms', phrase('all')],
      ['withdraw consent to be called', 'sms', phrase(['voice'])],
      ['I do not consent', 'email', phrase('all')],
      ['cease all communication', 'voice', phrase('all')],
      ['cease and desist', 'voice', phrase('all')],
      // complaints
      ['why do you keep texting me', 'voice', phrase(['sms'])],
      ['why do u keep calling', 'sms', phrase(['voice'])],
      // consent disputes
      ['I never signed up for this', 'sms', phrase(['sms'])],
      ['I never signed up for your dm', 'voice', phrase(['voice'])],
      ["I didn't opt in", 'email', phrase(['email'])],
      // leave me alone
      ['leave me alone', 'email', phrase('all')],
      ['go away', 'sms', phrase('all')],
      ['piss off', 'voice', phrase('all')],
      // wrong number
      ['wrong number', 'email', phrase(['sms', 'voice'])],
      ['wrong person', 'email', phrase(['email'])],
      ['wrong email', 'sms', phrase(['email'])],
      ['número equivocado', 'email', phrase(['sms', 'voice'])],
      ['se equivocó de persona', 'voice', phrase(['voice'])],
      // threats
      ["if you don't stop I'll report you", 'voice', phrase(['voice'])],
      ['if you keep texting me', 'email', phrase(['sms'])],
      ['if you call me again', 'sms', phrase(['voice'])],
      // stop at the end after a lead-in word
      ['can you please stop', 'voice', phrase(['voice'])],
      ['new number stop', 'email', phrase(['sms', 'voice'])],
      ['seriously stop it', 'sms', phrase(['sms'])],
      // stop opening a sentence
      ["Stop I'm not interested", 'sms', phrase(['sms'])],
      ['stop who is this', 'email', phrase(['email'])],
      // DNC
      ['put me on your do not call list', 'voice', phrase('all', true)],
      ['DNC', 'sms', phrase('all', true)],
      ['never contact me again', 'sms', phrase('all', true)],
      ['never text me', 'email', phrase('all', true)],
      ["don't ever call me", 'sms', phrase('all', true)],
      ['nunca me llamen', 'sms', phrase('all', true)],
      ['no me vuelvan a escribir nunca', 'email', phrase('all', true)],
      ['lista de no llamar', 'voice', phrase('all', true)],
      // Spanish
      ['no me escriban', 'sms', phrase(['sms'])],
      ['no me escriban', 'email', phrase(['sms', 'email'])],
      ['no me llamen', 'sms', phrase(['voice'])],
      ['no me marquen', 'sms', phrase(['voice'])],
      ['no me texteen', 'voice', phrase(['sms'])],
      ['no me molesten', 'sms', phrase('all')],
      ['no me contacten', 'sms', phrase('all')],
      ['no me fastidien', 'voice', phrase('all')],
      ['no me envíen más mensajes', 'voice', phrase(['sms'])],
      ['no me manden correo', 'sms', phrase(['email'])],
      ['no me manden nada', 'email', phrase(['email'])],
      ['no quiero recibir mensajes', 'voice', phrase(['sms'])],
      ['no quiero que me llamen', 'sms', phrase(['voice'])],
      ['no más llamadas', 'sms', phrase(['voice'])],
      ['no más texto', 'voice', phrase(['sms'])],
      ['dejen de escribirme', 'voice', phrase(['sms'])],
      ['dejen de marcarme', 'sms', phrase(['voice'])],
      ['dejen de textearme', 'voice', phrase(['sms'])],
      ['dejen de molestarme', 'sms', phrase('all')],
      ['dejen de acosarme', 'sms', phrase('all')],
      ['paren de enviarme cosas', 'voice', phrase(['voice'])],
      ['quiero darme de baja', 'voice', phrase(['voice'])],
      ['solicito la baja', 'email', phrase(['email'])],
      ['bórrenme de su lista', 'sms', phrase('all')],
      ['sáquenme de su lista de correos', 'sms', phrase(['email'])],
      ['borren mi numero', 'email', phrase(['sms', 'voice'])],
      ['déjenme en paz', 'voice', phrase('all')],
    ]);
  });

  it('does not read a negated, postponed or unrelated sentence as a request', () => {
    const rows: [string, ChannelName, Recognition][] = [];
    for (const text of [
      "please don't stop texting me",
      "I don't want you to stop sending these",
      "don't stop the texts",
      "don't stop, this is great",
      'no need to stop texting me',
      "I don't want to unsubscribe",
      "don't remove me",
      "I didn't say remove me",
      "I don't want to be taken off",
      "I never said I don't want texts to stop",
      "I didn't ask you to take me off",
      "don't take me off your list",
      'I never said stop',
      "I don't want to revoke consent",
      "don't leave me alone",
      "I don't want to opt out",
      "don't go away",
      "I didn't mean can you stop",
      "I didn't mean stop who is this",
      'if you stop by',
      "don't make it stop",
      'no dejen de escribirme',
      'no quiero que dejen de llamarme',
      "don't call me before 5",
      "don't call me now",
      'no more calls after 8pm',
      'no me llames ahora',
      'no me llamo Juan',
      'you never call me back',
      'Never call me before 10',
      'he said to stop by',
      'I gave you the wrong number',
      'take me off hold',
      'take me off the waitlist',
      'can I opt out of the HOA',
      'the opt out option',
      'can we stop the call here',
      'stop sending me listings',
      'stop by the house',
      'I am going to stop at the store',
      'can you send me the texts',
      'no more questions',
      'I get off work at 5',
      'cancel my appointment',
    ]) {
      for (const c of CHANNELS) rows.push([text, c, NONE]);
    }
    expectAll(rows);
  });

  it('a message that names several requests revokes all their channels, in the order sms, voice, email', () => {
    expectAll([
      ['Stop emailing me. Stop calling me. Stop texting me.', 'sms', phrase(['sms', 'voice', 'email'])],
      ['stop calling me; no more emails', 'sms', phrase(['voice', 'email'])],
      ['no more emails, stop!', 'voice', phrase(['voice', 'email'])],
      ['Stop texting me. Leave me alone', 'sms', phrase('all')],
      ['never call me. stop texting me', 'sms', phrase('all', true)],
      ['Yes. Stop.', 'voice', phrase(['voice'])],
      ['STOP - Mike', 'sms', phrase(['sms'])],
      ['STOP -- Mike', 'sms', phrase(['sms'])],
      ['Mike - STOP', 'email', phrase(['email'])],
      ['START. Actually no, stop texting me', 'voice', phrase(['sms'])],
    ]);
  });
});
