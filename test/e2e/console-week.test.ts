import type { Browser, Page } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { SCOPES } from '../../src/platform/auth/scopes.js';
import { createUserInOrganization } from '../../src/users/users.service.js';
import { createLead, uniquePhone, type Client } from '../support/harness.js';
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

/** Serious and critical axe findings on the page as it stands. */

/** `n` tasks, `parallel` at a time. */
async function inBatches(n: number, parallel: number, task: (i: number) => Promise<unknown>): Promise<void> {
  for (let i = 0; i < n; i += parallel)
    await Promise.all(Array.from({ length: Math.min(parallel, n - i) }, (_, j) => task(i + j)));
}

/**
 * What a new operator tripped on in the first week (issue 28), in the browser:
 * the inbox's true count and its pages past 100, an email's subject apart from
 * its body, a lead's webhook deliveries. One browser, one server.
 */
describeWithBrowser('console in the browser: the first week', () => {
  let server: ConsoleServer;
  let browser: Browser;
  let page: Page;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
    ({ page } = await signedIn(browser, server, server.users.admin));
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  const inbox = () => page.getByRole('list', { name: 'Conversations' });
  const row = (name: string) => inbox().getByRole('listitem').filter({ hasText: name });

  it('counts the conversations truly and shows those past the first 100', async () => {
    // An organization of its own, so the count is exactly what this test made.
    const org = `week-${process.pid}`;
    const client: Client = await server.ts.clientWithScopes([...SCOPES], org);
    const admin = {
      email: `week-admin-${process.pid}@example.com`,
      password: `pw-${process.pid}-week-long`,
      role: 'admin' as const,
    };
    await createUserInOrganization(server.ts.server.store.db, org, admin);
    await inBatches(103, 10, async (i) => {
      const phone = uniquePhone();
      await createLead(client, { firstName: 'Talker', lastName: String(i).padStart(3, '0'), phone, isAiOn: false });
      expect((await client.post('/inbound', { channel: 'sms', from: phone, text: `message ${i}` })).status).toBe(200);
    });
    await inBatches(4, 4, (i) =>
      createLead(client, { firstName: 'Silent', lastName: String(i), phone: uniquePhone(), isAiOn: false }),
    );

    const { context, page: p } = await signedIn(browser, server, admin);
    try {
      await p.goto('/console/');
      await p.getByText('103 conversations, the latest 100 shown, 100 unread').waitFor();
      const rows = p.getByRole('list', { name: 'Conversations' }).getByRole('listitem');
      expect(await rows.count()).toBe(100);
      await screenshot(p, 'inbox-true-count');
      await p.getByRole('button', { name: 'Show 3 more' }).click();
      await p.getByText('103 conversations, 103 unread').waitFor();
      expect(await rows.count()).toBe(103);
      await screenshot(p, 'inbox-paged');
      expect(await rows.filter({ hasText: 'Silent' }).count()).toBe(0);
      expect(await p.getByRole('button', { name: /^Show \d+ more$/ }).count()).toBe(0);
      // The count follows the filters, the channel of the latest message among them.
      await p.getByLabel('Channel').selectOption('email');
      await p.getByText('0 conversations, 0 unread').waitFor();
      await p.getByLabel('Channel').selectOption('sms');
      await p.getByText('103 conversations, the latest 100 shown').waitFor();
    } finally {
      await context.close();
    }
  });

  it("shows an email's subject apart from its body, in the inbox and in the conversation", async () => {
    const email = `esme.${process.pid}@example.com`;
    const id = await createLead(server.ts.acme, { firstName: 'Esme', lastName: 'Email', email, isAiOn: false });
    const said = await server.ts.acme.post('/inbound', {
      channel: 'email',
      from: email,
      subject: 'Quote for the roof',
      text: 'Could you come on Tuesday?',
    });
    expect(said.status).toBe(200);
    await page.goto('/console/');
    const preview = row('Esme Email').locator('.preview');
    await preview.locator('.subject').getByText('Quote for the roof', { exact: true }).waitFor();
    expect(await preview.textContent()).toBe('Quote for the roof · Could you come on Tuesday?');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'inbox-email-subject');

    await row('Esme Email').getByRole('link').click();
    await page.getByRole('heading', { name: 'Esme Email' }).waitFor();
    const message = page.locator('.thread .msg').filter({ hasText: 'Could you come on Tuesday?' });
    expect(await message.locator('.msg-subject').textContent()).toBe('Subject: Quote for the roof');
    expect(await message.locator('.msg-text').textContent()).toBe('Could you come on Tuesday?');
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'lead-email-subject');
    expect(page.url()).toContain(id);
  });

  it('labels the STOP confirmation Automatic, in the language of the opt-out, and names who acted in the consent history', async () => {
    const phone = uniquePhone();
    const id = await createLead(server.ts.acme, {
      firstName: 'Sofia',
      lastName: 'Baja',
      phone,
      email: `sofia.${process.pid}@example.com`,
      isAiOn: false,
    });
    expect((await server.ts.acme.post('/inbound', { channel: 'sms', from: phone, text: 'BAJA' })).status).toBe(200);
    await page.goto(`/console/leads/${id}`);
    const reply = page.locator('.thread .msg.outbound');
    await page.getByRole('heading', { name: 'Sofia Baja' }).waitFor();
    await reply.waitFor({ timeout: 45_000 });
    expect(await reply.locator('.msg-meta').textContent()).toMatch(/^Automatic · SMS/);
    expect(await reply.locator('.msg-text').textContent()).toMatch(/dado de baja/);
    await page.goto('/console/');
    await row('Sofia Baja')
      .getByText(/^Automatic: .*dado de baja/)
      .waitFor();

    // The consent history names the key by its prefix and name, and a console action by the user's email.
    await page.goto(`/console/leads/${id}`);
    page.once('dialog', (d) => void d.accept());
    await page.getByRole('button', { name: 'Unsubscribe email' }).click();
    const history = page.locator('section[aria-labelledby="consent-title"]');
    await history.getByText(`by ${server.users.admin.email}`).waitFor();
    expect(await history.textContent()).not.toMatch(/key:session:|by key:[0-9a-f]/);
    expect((await server.ts.acme.post(`/leads/${id}/unsubscribe`, { channels: ['voice'] })).status).toBe(200);
    await page.reload();
    await history
      .getByText(/by key pk_live_[\w-]+…/)
      .first()
      .waitFor();
    expect(await seriousViolations(page)).toEqual([]);
    await screenshot(page, 'lead-stop-es-consent');
  });

  it("filters an endpoint's deliveries by lead, from the lead's page", async () => {
    const receiver = await new Receiver().start();
    try {
      await registerEndpoint(server.ts.acme, receiver, ['optOut']);
      const a = await createLead(server.ts.acme, { firstName: 'Ada', lastName: 'Filter', phone: uniquePhone() });
      const b = await createLead(server.ts.acme, { firstName: 'Ben', lastName: 'Other', phone: uniquePhone() });
      for (const id of [a, b]) expect((await server.ts.acme.post(`/leads/${id}/unsubscribe`, {})).status).toBe(200);
      await receiver.until(() => receiver.received.length >= 4);

      await page.goto(`/console/leads/${a}`);
      await page.getByRole('link', { name: 'Webhook deliveries of this lead' }).click();
      const section = page.getByRole('region', { name: `Endpoint ${receiver.url}` });
      expect(await section.getByLabel('Lead id').inputValue()).toBe(a);
      const rows = section.getByRole('row').filter({ hasText: 'optOut' });
      await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(2);
      await rows.first().getByText('Body and answers').click();
      await section.getByText(`"leadId": "${a}"`).first().waitFor();
      // Each attempt's answer: this receiver took the first.
      await section
        .getByRole('list', { name: "Each attempt's answer" })
        .getByText(/: 200$/)
        .first()
        .waitFor();
      expect(await section.getByText(`"leadId": "${b}"`).count()).toBe(0);
      expect(await seriousViolations(page)).toEqual([]);
      await screenshot(page, 'webhooks-lead-filter');

      await section.getByLabel('Lead id').fill(b);
      await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(2);
      await section.getByLabel('Lead id').fill('');
      await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(4);
    } finally {
      await receiver.stop();
    }
  });

  it("pages an endpoint's deliveries 50 at a time and filters them by event", async () => {
    const receiver = await new Receiver().start();
    try {
      await registerEndpoint(server.ts.acme, receiver, ['optOut', 'lead.created']);
      // 26 leads: 26 lead.created and 52 optOut (sms and voice) deliveries.
      await inBatches(26, 13, async () => {
        const id = await createLead(server.ts.acme, { phone: uniquePhone(), isAiOn: false });
        expect((await server.ts.acme.post(`/leads/${id}/unsubscribe`, {})).status).toBe(200);
      });
      await receiver.until(() => receiver.received.length >= 78, 30_000);

      await page.goto('/console/webhooks');
      const section = page.getByRole('region', { name: `Endpoint ${receiver.url}` });
      const rows = section.locator('tbody tr');
      await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(50);
      await section.getByRole('button', { name: 'Show 50 more' }).click();
      await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(78);
      await section.getByLabel('Event').selectOption('lead.created');
      await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(26);
      expect(await rows.filter({ hasText: 'optOut' }).count()).toBe(0);
      await section.getByLabel('Event').selectOption('optOut');
      await expect.poll(() => rows.count(), { timeout: 15_000 }).toBe(50);
      expect(await rows.filter({ hasText: 'lead.created' }).count()).toBe(0);
    } finally {
      await receiver.stop();
    }
  });
});
