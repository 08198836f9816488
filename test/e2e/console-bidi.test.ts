import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLead, uniquePhone } from '../support/harness.js';
import { describeWithBrowser, launchChromium, signedIn, startConsoleServer, type ConsoleServer } from './support.js';

const NAME = 'acct 1234 \u202E5678';
const MESSAGE = 'pay to acct 1234 \u202E5678 to\u200Bday';

/** Where each of two characters of `text` is drawn in `selector`'s first match: x of the left edge of each. */
async function drawnAt(page: Page, selector: string, text: string, a: string, b: string) {
  return page
    .locator(selector)
    .first()
    .evaluate(
      (el, [t, x, y]) => {
        const walker = document.createTreeWalker(el, NodeFilter.SHOW_TEXT);
        for (let node = walker.nextNode(); node; node = walker.nextNode()) {
          const at = node.textContent!.indexOf(t!);
          if (at < 0) continue;
          const left = (c: string) => {
            const range = document.createRange();
            const i = at + t!.indexOf(c);
            range.setStart(node!, i);
            range.setEnd(node!, i + 1);
            return range.getBoundingClientRect().left;
          };
          return { a: left(x!), b: left(y!) };
        }
        return null;
      },
      [text, a, b],
    );
}

/** What an element shows, whether it is isolated (`<bdi>` / unicode-bidi: isolate) and whether a raw control character is left in it. */
const inspect = (page: Page, selector: string) =>
  page
    .locator(selector)
    .first()
    .evaluate((el) => ({
      text: (el as HTMLElement).innerText,
      tag: el.tagName,
      unicodeBidi: getComputedStyle(el).unicodeBidi,
      rawControls: /[\u200B-\u200F\u202A-\u202E\u2066-\u2069]/.test(el.textContent ?? ''),
    }));

describeWithBrowser('console: lead text with bidirectional controls', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let leadId = '';

  beforeAll(async () => {
    [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
    const phone = uniquePhone();
    leadId = await createLead(server.ts.acme, { firstName: NAME, lastName: '', phone });
    await server.ts.acme.post('/inbound', { channel: 'sms', from: phone, text: MESSAGE });
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('the inbox shows the name isolated, with the override as a visible marker, and 5678 drawn left to right', async () => {
    const { context, page } = await signedIn(browser, server, server.users.viewer);
    try {
      await page.goto('/console/');
      const name = '.inbox li .name bdi.user-text';
      await page.locator(name).first().waitFor();
      expect(await inspect(page, name)).toEqual({
        text: 'acct 1234 ⟨U+202E⟩5678',
        tag: 'BDI',
        unicodeBidi: 'isolate',
        rawControls: false,
      });
      const drawn = await drawnAt(page, name, '5678', '5', '8');
      expect(drawn).not.toBeNull();
      expect(drawn!.a).toBeLessThan(drawn!.b);
      expect(await inspect(page, '.inbox li .preview bdi.user-text')).toMatchObject({
        text: 'pay to acct 1234 ⟨U+202E⟩5678 to⟨U+200B⟩day',
        rawControls: false,
      });
    } finally {
      await context.close();
    }
  });

  it("the lead's page shows the name in its heading and the message the same way", async () => {
    const { context, page } = await signedIn(browser, server, server.users.viewer);
    try {
      await page.goto(`/console/leads/${leadId}`);
      await page.locator('.thread li').first().waitFor();
      expect(await inspect(page, 'h1 bdi.user-text')).toEqual({
        text: 'acct 1234 ⟨U+202E⟩5678',
        tag: 'BDI',
        unicodeBidi: 'isolate',
        rawControls: false,
      });
      const message = '.thread .msg-text bdi.user-text';
      expect(await inspect(page, message)).toEqual({
        text: 'pay to acct 1234 ⟨U+202E⟩5678 to⟨U+200B⟩day',
        tag: 'BDI',
        unicodeBidi: 'isolate',
        rawControls: false,
      });
      const drawn = await drawnAt(page, message, '5678', '5', '8');
      expect(drawn!.a).toBeLessThan(drawn!.b);
      expect(await page.title()).toBe('acct 1234 ⟨U+202E⟩5678 · Parley console');
    } finally {
      await context.close();
    }
  });

  it('the leads table shows the name the same way', async () => {
    const { context, page } = await signedIn(browser, server, server.users.viewer);
    try {
      await page.goto('/console/leads');
      const name = 'tbody tr td a bdi.user-text';
      await page.locator(name).first().waitFor();
      expect(await inspect(page, name)).toEqual({
        text: 'acct 1234 ⟨U+202E⟩5678',
        tag: 'BDI',
        unicodeBidi: 'isolate',
        rawControls: false,
      });
    } finally {
      await context.close();
    }
  });
});
