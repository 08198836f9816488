import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, inject, it } from 'vitest';
import { createLead, uniquePhone } from '../support/harness.js';
import { describeWithBrowser, launchChromium, signedIn, startConsoleServer, type ConsoleServer } from './support.js';

/**
 * The other suites drive the console on SQLite; this one runs the live path on
 * PostgreSQL, where the event stream reads the shared outbox table.
 */
describeWithBrowser('console in the browser on PostgreSQL: live conversation', () => {
  let server: ConsoleServer | undefined;
  let browser: Browser | undefined;
  const pg = inject('pgAvailable');

  beforeAll(async () => {
    if (!pg) return;
    [server, browser] = await Promise.all([startConsoleServer('postgres'), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it.skipIf(!pg)(
    'an inbound message shows live in the inbox and the thread; a reply pauses the AI; a viewer cannot write',
    async () => {
      const s = server!;
      const phone = uniquePhone();
      const id = await createLead(s.ts.acme, { firstName: 'Petra', lastName: 'Postgres', phone, isAiOn: true });
      const { context, page } = await signedIn(browser!, s, s.users.agent);
      await page.goto('/console/');
      // Listed once the inbox has loaded: no message yet, so no conversation.
      await page.getByText(/conversations?, \d+ unread/).waitFor();
      expect(await page.getByText('Petra Postgres').count()).toBe(0);
      await page.waitForTimeout(300);
      expect(
        (await s.ts.acme.post('/inbound', { channel: 'sms', from: phone, text: 'Any news on my quote?' })).status,
      ).toBe(200);
      await page.getByText('Any news on my quote?').waitFor({ timeout: 20_000 });

      await page.getByRole('link', { name: /Petra Postgres/ }).click();
      await page.locator('.thread').getByText('Any news on my quote?').waitFor();
      await page.waitForTimeout(300);
      expect((await s.ts.acme.post('/inbound', { channel: 'sms', from: phone, text: 'Hello again' })).status).toBe(200);
      await page.locator('.thread').getByText('Hello again').waitFor({ timeout: 20_000 });

      await page.getByLabel('Reply', { exact: true }).fill('On its way today.');
      await page.getByRole('button', { name: 'Send reply' }).click();
      await expect.poll(() => page.locator('.ai-state strong').textContent(), { timeout: 15_000 }).toBe('off');
      expect((await s.ts.acme.get(`/leads/${id}`)).body.isAiOn).toBe(false);
      await context.close();

      const viewer = await signedIn(browser!, s, s.users.viewer);
      await viewer.page.goto('/console/');
      const status = await viewer.page.evaluate(async () => {
        const session = await (await fetch('/console/api/session')).json();
        return (
          await fetch('/v1/customerProfiles', {
            method: 'POST',
            headers: { 'x-csrf-token': session.csrfToken, 'content-type': 'application/json' },
            body: JSON.stringify({ name: 'nope' }),
          })
        ).status;
      });
      expect(status).toBe(403);
      await viewer.context.close();
    },
  );
});
