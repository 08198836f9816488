import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLead } from '../support/harness.js';
import {
  describeWithBrowser,
  launchChromium,
  signedIn,
  startConsoleServer,
  type ConsoleServer,
  seriousViolations,
} from '../e2e/support.js';

describeWithBrowser('console in the browser: my hand-offs', () => {
  let server: ConsoleServer;
  let browser: Browser;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('a hand-off shows as a badge within seconds, and the owner acknowledges it with one click', async () => {
    const { acme } = server.ts;
    const users = (await acme.get('/users')).body.users as { id: string; email: string }[];
    const agent = users.find((u) => u.email === server.users.agent.email)!;
    const { context, page } = await signedIn(browser, server, server.users.agent);
    await page.goto('/console/handoffs');
    await page.getByText('Nothing handed to you right now.').waitFor();

    // Raised while the page is open: the live notification event brings the badge and the row.
    const leadId = await createLead(acme, { firstName: 'Hugo', lastName: 'Handed' });
    expect((await acme.call('PUT', `/leads/${leadId}/owner`, { userId: agent.id })).status).toBe(200);
    const t0 = Date.now();
    expect((await acme.post(`/leads/${leadId}/handoff`, { reason: 'Wants to talk pricing' })).status).toBe(200);
    await page.getByLabel('1 hand-off to acknowledge').waitFor({ timeout: 5000 });
    expect(Date.now() - t0).toBeLessThan(5000);
    await page.getByRole('link', { name: 'Hugo Handed' }).waitFor();
    await page.getByText('Wants to talk pricing').waitFor();

    // Accessible (no serious or critical axe violation) and fits a phone.
    expect(await seriousViolations(page)).toEqual([]);
    await page.setViewportSize({ width: 390, height: 844 });
    await page.waitForTimeout(50);
    expect(await page.evaluate(() => document.documentElement.scrollWidth)).toBeLessThanOrEqual(390);
    await page.setViewportSize({ width: 1280, height: 900 });

    await page.getByRole('button', { name: 'Acknowledge the hand-off of Hugo Handed' }).click();
    await page.getByRole('button', { name: 'Close the hand-off of Hugo Handed' }).waitFor();
    await page.getByLabel('1 hand-off to acknowledge').waitFor({ state: 'detached' });
    const [h] = (await acme.get('/handoffs')).body.handoffs;
    expect(h).toMatchObject({
      leadId,
      status: 'acknowledged',
      acknowledgedBy: agent.id,
      firstTouchKind: 'acknowledgement',
    });

    // The away switch, the user's own: the next hand-off of the pool skips them.
    await page.getByRole('button', { name: 'Available (set away)' }).click();
    await page.getByRole('button', { name: /^Away/ }).waitFor();
    expect((await acme.get(`/users/${agent.id}`)).body.isAway).toBe(true);

    // The lead page names the owner.
    await page.goto(`/console/leads/${leadId}`);
    await page.getByRole('heading', { name: 'Hugo Handed' }).waitFor();
    expect(await page.getByLabel('Owner').inputValue()).toBe(agent.id);
    await context.close();
  });
});
