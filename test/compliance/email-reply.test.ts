import { describe, expect, it } from 'vitest';
import { newTextOfReply } from '../../src/compliance/email-reply.js';

const FOOTER = 'To stop receiving these emails, reply STOP or unsubscribe: https://parley.example/u/3f9c1a7e';
const OURS = `Hi Sam,\n\nAre you free for a viewing this week?\n\nBest,\nDana\n\n${FOOTER}`;
const quote = (s: string) =>
  s
    .split('\n')
    .map((l) => (l ? `> ${l}` : '>'))
    .join('\n');

describe('newTextOfReply', () => {
  it('leaves a message with no history alone (trimmed)', () => {
    expect(newTextOfReply('  Thursday at 4 works.\n\nSam\n')).toBe('Thursday at 4 works.\n\nSam');
    expect(newTextOfReply('STOP')).toBe('STOP');
    expect(newTextOfReply('')).toBe('');
  });

  it('Gmail: "On <date> <name> <address> wrote:" and ">" quoting', () => {
    const body = `Thursday at 4 works.\n\nOn Mon, Mar 2, 2026 at 9:14 AM Dana Reyes <dana@parley.example> wrote:\n\n${quote(OURS)}\n`;
    expect(newTextOfReply(body)).toBe('Thursday at 4 works.');
  });

  it('Gmail: the attribution wrapped over two lines (the library joins it)', () => {
    const body = `Sounds good.\n\nOn Mon, Mar 2, 2026 at 9:14 AM Dana Reyes <\ndana@parley.example> wrote:\n\n${quote(OURS)}\n`;
    expect(newTextOfReply(body)).toBe('Sounds good.');
  });

  it('Gmail: the attribution wrapped over three lines (our pre-step joins it)', () => {
    const body = `Sounds good.\n\nOn Mon, Mar 2, 2026 at 9:14 AM Dana Reyes from Parley Homes\n<dana@parley.example>\nwrote:\n\n${quote(OURS)}\n`;
    expect(newTextOfReply(body)).toBe('Sounds good.');
  });

  it('an attribution with no blank line before it and unquoted history below', () => {
    const body = `Sounds good\nOn Mon, Mar 2, 2026 at 9:14 AM Dana Reyes <dana@parley.example> wrote:\n${OURS}`;
    expect(newTextOfReply(body)).toBe('Sounds good');
  });

  it('keeps a reply written below the quote (bottom-posting)', () => {
    const body = `On Mon, Mar 2, 2026 at 9:14 AM Dana Reyes <dana@parley.example> wrote:\n${quote(OURS)}\n\nNo thanks, please stop emailing me.\n`;
    expect(newTextOfReply(body)).toBe('No thanks, please stop emailing me.');
  });

  it('does not mistake a sentence for an attribution ("On Monday my wife wrote:" has no date)', () => {
    expect(newTextOfReply('On Monday my wife wrote:\nplease stop emailing me')).toBe(
      'On Monday my wife wrote:\nplease stop emailing me',
    );
    expect(newTextOfReply('Thanks.\nOn Monday my wife wrote:\nplease stop emailing me')).toBe(
      'Thanks.\nOn Monday my wife wrote:\nplease stop emailing me',
    );
  });

  it('a wrapped attribution with no blank line before it and unquoted history', () => {
    expect(newTextOfReply('Call me.\nOn Mon 2 Mar\nDana wrote:\nHi Sam, the history')).toBe('Call me.');
  });

  it('Apple Mail: "Sent from my iPhone" then a quoted attribution', () => {
    const body = `Is the garage attached?\n\nSent from my iPhone\n\n> On Mar 2, 2026, at 9:14 AM, Dana Reyes <dana@parley.example> wrote:\n> \n${quote(OURS)}`;
    expect(newTextOfReply(body)).toBe('Is the garage attached?');
  });

  it('Outlook desktop: "-----Original Message-----"', () => {
    const body = `Thanks for the info!\n\n-----Original Message-----\nFrom: Dana Reyes <dana@parley.example>\nSent: Monday, March 2, 2026 9:14 AM\nTo: Sam Lee <sam@example.com>\nSubject: 42 Elm Street\n\n${OURS}`;
    expect(newTextOfReply(body)).toBe('Thanks for the info!');
  });

  it('Outlook desktop: underscores, then "From: Name <address>" / "Sent:"', () => {
    const body = `Yes I'm interested, what's the price?\n\n________________________________\nFrom: Dana Reyes <dana@parley.example>\nSent: Monday, March 2, 2026 9:14 AM\nTo: Sam Lee\nSubject: 42 Elm Street\n\n${OURS}`;
    expect(newTextOfReply(body)).toBe("Yes I'm interested, what's the price?");
  });

  it('Outlook on the web: "From: Name" with no address (our pre-step)', () => {
    const body = `ok thursday works\n\n________________________________\nFrom: Dana Reyes\nSent: Monday, March 2, 2026 9:14 AM\nTo: Sam Lee\nSubject: 42 Elm Street\n\n${OURS}`;
    expect(newTextOfReply(body)).toBe('ok thursday works');
    const noRule = `ok thursday works\nFrom: Dana Reyes\nSent: Monday, March 2, 2026 9:14 AM\n\n${OURS}`;
    expect(newTextOfReply(noRule)).toBe('ok thursday works');
  });

  it('Outlook bold headers: "*From:*" / "*Sent:*"', () => {
    const body = `Could you call me instead?\n\n*From:* Dana Reyes <dana@parley.example>\n*Sent:* Monday, March 2, 2026 9:14 AM\n*Subject:* 42 Elm Street\n\n${OURS}`;
    expect(newTextOfReply(body)).toBe('Could you call me instead?');
  });

  it('keeps a "From:" line that does not open a header block', () => {
    expect(newTextOfReply('From: the buyer side, we can go to 450k.\nThanks')).toBe(
      'From: the buyer side, we can go to 450k.\nThanks',
    );
    expect(newTextOfReply('Date: Friday works\nFrom: my side, yes')).toBe('Date: Friday works\nFrom: my side, yes');
    expect(newTextOfReply('From: my lender, 6%.\na\nb\nc\nd\nSent: ok?')).toBe(
      'From: my lender, 6%.\na\nb\nc\nd\nSent: ok?',
    );
  });

  it('a body that is only a forwarded header block has no new text', () => {
    expect(newTextOfReply(`From: Dana Reyes\nSent: Monday, March 2, 2026 9:14 AM\n\n${OURS}`)).toBe('');
  });

  it('plain ">" quoting with no attribution', () => {
    expect(newTextOfReply(`Not now, maybe in spring.\n\n${quote(OURS)}`)).toBe('Not now, maybe in spring.');
  });

  it('signatures: "-- " and everything below it', () => {
    expect(newTextOfReply('Unsubscribe me please\n\n-- \nSam Lee\nStop & Shop #412\n')).toBe('Unsubscribe me please');
  });

  it('signatures: "Sent from my iPhone" / "Enviado desde mi iPhone"', () => {
    expect(newTextOfReply('Stop\n\nSent from my iPhone')).toBe('Stop');
    expect(newTextOfReply('Me interesa\n\nEnviado desde mi iPhone')).toBe('Me interesa');
  });

  it('Spanish Gmail: "El <fecha>, <nombre> (<dirección>) escribió:"', () => {
    const body = `No me escriban más.\n\nEl lun, 2 mar 2026 a las 9:14, Dana Reyes (<dana@parley.example>) escribió:\n\n${quote(OURS)}\n`;
    expect(newTextOfReply(body)).toBe('No me escriban más.');
    const wrapped = `Me interesa.\n\nEl lun, 2 mar 2026 a las 9:14,\nDana Reyes\n(<dana@parley.example>) escribió:\n\n${quote(OURS)}\n`;
    expect(newTextOfReply(wrapped)).toBe('Me interesa.');
  });

  it('header blocks with a space before the colon, and Android\'s spaced "Original message" rule', () => {
    expect(newTextOfReply(`D'accord.\n\nDe : Dana Reyes\nEnviado : lunes\n\n${OURS}`)).toBe("D'accord.");
    expect(newTextOfReply(`Vale.\n\n-------- Mensaje original --------\nDe: dana@parley.example\n${OURS}`)).toBe(
      'Vale.',
    );
  });

  it('an "On ... wrote:" with text after the colon on the same line is not an attribution', () => {
    const body = 'Thanks.\nOn the 2nd my wife wrote: please stop emailing me';
    expect(newTextOfReply(body)).toBe(body);
  });

  it('Spanish Outlook: "De: / Enviado:" and "-----Mensaje original-----"', () => {
    expect(
      newTextOfReply(
        `De acuerdo, el jueves.\n\nDe: Dana Reyes\nEnviado: lunes, 2 de marzo de 2026 9:14\nPara: Sam Lee\nAsunto: Calle Olmo 42\n\n${OURS}`,
      ),
    ).toBe('De acuerdo, el jueves.');
    expect(newTextOfReply(`Gracias\n\n-----Mensaje original-----\nDe: dana@parley.example\n${OURS}`)).toBe('Gracias');
  });

  it('removes our own footer wherever it survives, so quoting it is never a STOP', () => {
    expect(newTextOfReply(`Call me at 5.\n\n${OURS}`)).toBe(
      'Call me at 5.\n\nHi Sam,\n\nAre you free for a viewing this week?\n\nBest,\nDana',
    );
    expect(newTextOfReply(`Great, see you Thursday.\n\n> ${FOOTER}`)).toBe('Great, see you Thursday.');
    expect(newTextOfReply(`Great.\n${FOOTER.toLowerCase()}`)).toBe('Great.');
  });

  describe('large or hostile bodies never reach the parser unbounded', () => {
    const history = quote('lorem ipsum dolor sit amet, consectetur adipiscing elit\n'.repeat(200));
    const attribution = 'On Mon, Mar 2, 2026 at 9:14 AM Dana Reyes <dana@parley.example> wrote:';

    it('a long quoted thread: the reply above it', () => {
      expect(newTextOfReply(`Thursday works.\n\n${attribution}\n${history}\n> ${FOOTER}`)).toBe('Thursday works.');
    });

    it('a long quoted thread: the reply below it (bottom-posting)', () => {
      expect(newTextOfReply(`${attribution}\n${history}\n\nPlease stop emailing me.\n\n-- \nSam`)).toBe(
        'Please stop emailing me.',
      );
    });

    it('a long quoted thread after a blank line, the reply below it; ">" inside a line is not a quote', () => {
      const body = `${attribution}\n\n${history}\n\nBudget is 400k > 450k. Please stop emailing me.`;
      expect(newTextOfReply(body)).toBe('Budget is 400k > 450k. Please stop emailing me.');
    });

    it('the parser limits are inclusive: 1000 characters a line, 4000 in all', () => {
      const sig = '\n\n-- \nSam'; // three lines: 1 + 4 + 4 characters with their line ends
      const line = 'a'.repeat(1000);
      expect(newTextOfReply(`${line}${sig}`)).toBe(line);
      expect(newTextOfReply(`${line}a${sig}`)).toBe(`${line}a${sig}`);
      const fits = ['b'.repeat(997), 'b'.repeat(997), 'b'.repeat(997), 'b'.repeat(996)].join('\n'); // 3991 + 9 = 4000
      expect(newTextOfReply(`${fits}${sig}`)).toBe(fits);
      expect(newTextOfReply(`${fits}b${sig}`)).toBe(`${fits}b${sig}`);
    });

    it('a long unquoted thread under an attribution is history', () => {
      const unquoted = 'lorem ipsum dolor sit amet, consectetur adipiscing elit\n'.repeat(200);
      expect(newTextOfReply(`Call me at 5.\n${attribution}\n${unquoted}${FOOTER}`)).toBe('Call me at 5.');
    });

    it('a long new text is kept whole, signature and all', () => {
      const long = 'We have a few questions about the house.\n'.repeat(150);
      const out = newTextOfReply(`Unsubscribe me.\n${long}\n-- \nSam`);
      expect(out.startsWith('Unsubscribe me.\nWe have')).toBe(true);
      expect(out.endsWith('-- \nSam')).toBe(true);
    });

    it('a very long line is not given to the parser (its signature then stays, trimmed)', () => {
      const line = 'please stop emailing me '.repeat(50);
      expect(newTextOfReply(`\n ${line}\n\n-- \nSam\n\n`)).toBe(`${line}\n\n-- \nSam`);
      const short = 'please stop emailing me '.repeat(40); // 960 characters: parsed
      expect(newTextOfReply(`${short}\n\n-- \nSam`)).toBe(short.trim());
    });

    it.each([
      ['Danish attributions', 'abc. d e skrev f\n'.repeat(4000)],
      ['Dutch attributions', 'Op a schreef b\n'.repeat(4000)],
      ['one long line', `x${' on at'.repeat(10000)}`],
      ['blank lines', '\n'.repeat(100000)],
    ])('%s: finishes quickly (the parser alone takes minutes)', (_name, body) => {
      const started = Date.now();
      newTextOfReply(body);
      expect(Date.now() - started).toBeLessThan(2000);
    });
  });

  it('handles old-Mac CR line ends', () => {
    expect(
      newTextOfReply(`Stop\r\rOn Mon, Mar 2, 2026 at 9:14 AM Dana <dana@parley.example> wrote:\r> ${FOOTER}\r`),
    ).toBe('Stop');
  });

  it('handles CRLF line ends', () => {
    const body = `Stop\r\n\r\nOn Mon, Mar 2, 2026 at 9:14 AM Dana <dana@parley.example> wrote:\r\n> ${FOOTER}\r\n`;
    expect(newTextOfReply(body)).toBe('Stop');
  });
});

describe('the footer Parley sends', () => {
  it("never reads as the lead's opt-out, with or without its signature line", async () => {
    const { emailBody } = await import('../../src/channels/email.js');
    const { recognise } = await import('../../src/compliance/opt-out-recognizer.js');
    const body = emailBody(
      'Hi Ann, the house on Elm St is still available.',
      'https://parley.example/v1/unsubscribe/abc',
    );
    for (const reply of [
      `Sounds great\n\n${body}`,
      `Sounds great\n${body.replace('--\n', '')}`,
      body.replace('--\n', ''),
    ]) {
      expect(recognise(newTextOfReply(reply), 'email'), reply).toEqual({ kind: 'none' });
    }
  });
});
