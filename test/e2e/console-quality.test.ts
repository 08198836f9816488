import type { Browser, BrowserContext, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLead, uniquePhone } from '../support/harness.js';
import { Receiver } from '../support/receiver.js';
import { registerEndpoint } from '../support/webhooks.js';
import {
  describeWithBrowser,
  launchChromium,
  screenshot,
  signedIn,
  startConsoleServer,
  type ConsoleServer,
  seriousViolations,
} from './support.js';

/** Every page of the console, with what shows it has loaded. */
const PAGES = [
  { name: 'inbox', path: '/console/', ready: '.inbox li' },
  { name: 'lead', path: '/console/leads/:lead', ready: '.thread li' },
  { name: 'leads', path: '/console/leads', ready: 'tbody tr' },
  { name: 'profiles', path: '/console/profiles', ready: '.card h2' },
  { name: 'webhooks', path: '/console/webhooks', ready: 'tbody tr' },
  { name: 'settings', path: '/console/settings', ready: '#hours-start' },
  { name: 'keys', path: '/console/keys', ready: 'tbody tr' },
  { name: 'users', path: '/console/users', ready: '.user-row' },
];

const overflow = (page: Page) => page.evaluate(() => document.documentElement.scrollWidth);

describeWithBrowser('console in the browser: accessible, keyboard usable, fits a phone', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let receiver: Receiver;
  let leadId = '';

  beforeAll(async () => {
    [server, browser, receiver] = await Promise.all([startConsoleServer(), launchChromium(), new Receiver().start()]);
    // A small, realistic organization: a few conversations, a profile, an endpoint with deliveries.
    const acme = server.ts.acme;
    await acme.post('/customerProfiles', {
      name: 'solar-leads',
      description: 'Homeowners asking about solar panels',
      openingMessage: 'Hi {{firstName}}, thanks for asking about solar!',
    });
    await registerEndpoint(acme, receiver);
    const people = [
      ['Maria', 'Gonzalez', 'Hi, is the 6 kW system still on offer? We have a south-facing roof.'],
      ['Dev', 'Patel', 'Can someone call me after 5pm?'],
      ['Sam', 'Okafor', 'STOP'],
    ] as const;
    for (const [firstName, lastName, text] of people) {
      const phone = uniquePhone();
      const id = await createLead(acme, {
        firstName,
        lastName,
        phone,
        email: `${firstName.toLowerCase()}@example.com`,
        isAiOn: firstName !== 'Dev',
      });
      leadId ||= id;
      await acme.post('/inbound', { channel: 'sms', from: phone, text });
    }
    await acme.post(`/leads/${leadId}/sendMessage`, {
      message: 'Yes it is! Would Tuesday at 10 work for a roof survey?',
      channel: 'sms',
      sendWhenOff: true,
    });
    await acme.post(`/leads/${leadId}/addContext`, { context: 'Prefers text over calls.' });
    await receiver.until(() => receiver.received.length > 0, 20_000);
  });
  afterAll(async () => {
    await browser?.close();
    await receiver?.stop();
    await server?.close();
  });

  // One test per page: on a busy machine eight pages with axe and two screenshots each take a while.
  it.each(PAGES)(
    '$name: no serious or critical axe violation, no CSP or script error, no horizontal overflow at 390 px, a screenshot',
    async (p) => {
      const { context, page } = await signedIn(browser, server, server.users.admin);
      // The server's CSP forbids inline script and style: the browser reports any attempt on the console.
      const errors: string[] = [];
      page.on('console', (m) => m.type() === 'error' && errors.push(m.text()));
      page.on('pageerror', (e) => errors.push(e.message));
      page.on('response', (r) => r.status() >= 400 && errors.push(`${r.status()} ${r.url()}`));
      try {
        await page.goto(p.path.replace(':lead', leadId));
        await page.locator(p.ready).first().waitFor();
        expect(await seriousViolations(page)).toEqual([]);
        expect(errors).toEqual([]);
        await screenshot(page, p.name);
        await page.setViewportSize({ width: 390, height: 844 });
        await page.waitForTimeout(50);
        expect(await overflow(page)).toBeLessThanOrEqual(390);
        await screenshot(page, `${p.name}-390`);
      } finally {
        await context.close();
      }
    },
  );

  it('the login page passes axe and fits 390 px', async () => {
    const context = await browser.newContext({ baseURL: server.ts.url, viewport: { width: 390, height: 844 } });
    const page = await context.newPage();
    await page.goto('/console/');
    await page.getByLabel('Email').waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    expect(await overflow(page)).toBeLessThanOrEqual(390);
    await screenshot(page, 'login');
    await context.close();
  });

  it('a keyboard-only walk (Tab and Enter) logs in and opens a lead, with focus always visible', async () => {
    const context: BrowserContext = await browser.newContext({ baseURL: server.ts.url });
    const page = await context.newPage();
    await page.goto('/console/');
    await page.getByLabel('Email').waitFor();
    const focused = () =>
      page.evaluate(() => {
        const el = document.activeElement as HTMLElement | null;
        const style = el ? getComputedStyle(el) : null;
        return {
          tag: el?.tagName ?? '',
          id: el?.id ?? '',
          text: el?.textContent?.trim() ?? '',
          href: el?.getAttribute('href') ?? '',
          outline: style ? style.outlineStyle !== 'none' && parseFloat(style.outlineWidth) > 0 : false,
        };
      });
    await page.keyboard.press('Tab');
    expect((await focused()).id).toBe('login-email');
    expect((await focused()).outline).toBe(true);
    await page.keyboard.type(server.users.agent.email);
    await page.keyboard.press('Tab');
    expect((await focused()).id).toBe('login-password');
    await page.keyboard.type(server.users.agent.password);
    await page.keyboard.press('Tab');
    expect((await focused()).text).toBe('Log in');
    await page.keyboard.press('Enter');
    await page.getByRole('heading', { name: 'Inbox' }).waitFor();
    await page.locator('.inbox li').first().waitFor();

    // Tab through the page until a conversation link has focus, then open it.
    let onLead = false;
    for (let i = 0; i < 40 && !onLead; i += 1) {
      await page.keyboard.press('Tab');
      const f = await focused();
      onLead = f.tag === 'A' && f.href.startsWith('/console/leads/');
      if (onLead) expect(f.outline).toBe(true);
    }
    expect(onLead).toBe(true);
    await page.keyboard.press('Enter');
    await page.locator('.thread').waitFor();
    expect(page.url()).toMatch(/\/console\/leads\/[0-9a-f-]{36}$/);
    await context.close();
  });
});
