import type { Browser } from 'playwright-core';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { createLead, uniquePhone } from '../support/harness.js';
import { describeWithBrowser, launchChromium, signedIn, startConsoleServer, type ConsoleServer } from './support.js';

describeWithBrowser('console in the browser: what each role sees and may do', () => {
  let server: ConsoleServer;
  let browser: Browser;

  beforeAll(async () => {
    [server, browser] = await Promise.all([startConsoleServer(), launchChromium()]);
  });
  afterAll(async () => {
    await browser?.close();
    await server?.close();
  });

  it('a viewer reads the conversation but has no reply box or actions, and a forced write is refused', async () => {
    const id = await createLead(server.ts.acme, {
      firstName: 'Vera',
      lastName: 'Viewed',
      phone: uniquePhone(),
      isAiOn: true,
    });
    const { context, page } = await signedIn(browser, server, server.users.viewer);
    await page.goto(`/console/leads/${id}`);
    await page.getByRole('heading', { name: 'Vera Viewed' }).waitFor();
    await page.getByText('Your role (viewer) can read conversations but not reply.').waitFor();
    expect(await page.locator('textarea, button:has-text("Turn AI")').count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Users' }).count()).toBe(0);
    expect(await page.getByRole('link', { name: 'Webhooks' }).count()).toBe(0);

    // The page hides the buttons; the server refuses the write anyway, even with a valid CSRF token.
    const forced = await page.evaluate(async (leadId) => {
      const session = await (await fetch('/console/api/session')).json();
      const res = await fetch(`/v1/leads/${leadId}/turnOffAi`, {
        method: 'POST',
        headers: { 'x-csrf-token': session.csrfToken, 'content-type': 'application/json' },
        body: '{}',
      });
      return { status: res.status, body: await res.json() };
    }, id);
    expect(forced.status).toBe(403);
    expect(typeof forced.body.message).toBe('string');
    expect((await server.ts.acme.get(`/leads/${id}`)).body.isAiOn).toBe(true);
    await context.close();
  });

  it('an agent replies and acts on leads but sees no admin pages and cannot save settings', async () => {
    const id = await createLead(server.ts.acme, { firstName: 'Aga', lastName: 'Agent', phone: uniquePhone() });
    const { context, page } = await signedIn(browser, server, server.users.agent);
    await page.goto(`/console/leads/${id}`);
    await page.getByRole('heading', { name: 'Aga Agent' }).waitFor();
    expect(await page.getByLabel('Reply', { exact: true }).isEnabled()).toBe(true);
    expect(await page.getByRole('link', { name: 'API keys' }).count()).toBe(0);
    await page.goto('/console/settings');
    await page.getByText('Only an admin can change settings.').waitFor();
    expect(await page.getByRole('button', { name: 'Save settings' }).count()).toBe(0);
    await page.goto('/console/profiles');
    await page.locator('.card h2').first().waitFor();
    expect(await page.getByRole('button', { name: /^(New profile|Edit)/ }).count()).toBe(0);
    await page.goto('/console/users');
    await page.getByRole('heading', { name: 'Not found' }).waitFor();
    await context.close();
  });

  it('an admin sees the admin pages and creates an API key shown once', async () => {
    const { context, page } = await signedIn(browser, server, server.users.admin);
    await page.goto('/console/keys');
    await page.getByLabel('Name').fill('zapier');
    await page.getByRole('button', { name: 'Create key' }).click();
    const key = await page.locator('.secret-value').textContent();
    expect(key && key.length).toBeGreaterThan(20);
    const check = await fetch(`${server.ts.url}/v1/leads?limit=1`, { headers: { 'x-api-key': key ?? '' } });
    expect(check.status).toBe(200);
    await page.reload();
    await page.getByRole('cell', { name: 'zapier' }).waitFor();
    expect(await page.locator('.secret-value').count()).toBe(0);
    await context.close();
  });

  it('an admin adds a user; the one-time password is shown once and signs them in', async () => {
    const { context, page } = await signedIn(browser, server, server.users.admin);
    const email = `new-agent-${process.pid}@example.com`;
    await page.goto('/console/users');
    await page.getByLabel('Email').fill(email);
    await page.getByLabel('Role', { exact: true }).selectOption('viewer');
    await page.getByRole('button', { name: 'Add user' }).click();
    const password = (await page.locator('.secret-value').textContent()) ?? '';
    expect(password.length).toBeGreaterThanOrEqual(12);
    await page.locator('.user-row', { hasText: email }).waitFor();
    const login = await fetch(`${server.ts.url}/console/api/login`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ email, password }),
    });
    expect(login.status).toBe(200);
    expect((await login.json()).user.role).toBe('viewer');
    await page.reload();
    await page.locator('.user-row', { hasText: email }).waitFor();
    expect(await page.locator('.secret-value').count()).toBe(0);
    await context.close();
  });
});
