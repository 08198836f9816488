import { createUserInOrganization } from '../../src/users/users.service.js';
import type { UserRole } from '../../src/platform/db/schema.js';
import type { AnswerOf, Body, SessionRoutes } from '../support/api.js';
import type { ApiResponse, TestServer } from '../support/harness.js';

/** A console session's answer, typed from the route schemas (test/support/api.ts) by method and path. */
export type SessionAnswer<M extends string, P extends string> = ApiResponse<
  Body<AnswerOf<SessionRoutes, Uppercase<M>, P>>
>;

export interface ConsoleClient {
  email: string;
  password: string;
  userId: string;
  cookie: string;
  csrf: string;
  /** A request with the session cookie, and the CSRF token unless `csrf: null`. */
  call<M extends string, P extends string>(
    method: M,
    path: P,
    body?: unknown,
    options?: { csrf?: string | null; headers?: Record<string, string> },
  ): Promise<SessionAnswer<M, P>>;
}

let counter = 0;
export const uniqueEmail = (label = 'user') => `${label}.${process.pid}.${++counter}@example.com`;

export async function request<M extends string, P extends string>(
  ts: TestServer,
  method: M,
  path: P,
  body?: unknown,
  headers: Record<string, string> = {},
): Promise<SessionAnswer<M, P>> {
  const init: RequestInit = { method, headers: { ...headers } };
  if (body !== undefined) {
    init.body = JSON.stringify(body);
    (init.headers as Record<string, string>)['content-type'] = 'application/json';
  }
  // Typed by the route it called; at run time it is whatever the server sent.
  return (await ts.raw(path, init)) as SessionAnswer<M, P>;
}

export async function makeUser(ts: TestServer, role: UserRole, org = 'acme', email = uniqueEmail(role)) {
  const created = await createUserInOrganization(ts.server.store.db, org, { email, role });
  return { email, password: created.password, userId: created.user.id };
}

export const cookieOf = (res: ApiResponse): string => (res.headers.get('set-cookie') ?? '').split(';')[0]!;

export async function signIn(
  ts: TestServer,
  user: { email: string; password: string; userId: string },
  headers: Record<string, string> = {},
): Promise<ConsoleClient> {
  const res = await request(ts, 'POST', '/console/api/login', { email: user.email, password: user.password }, headers);
  if (res.status !== 200) throw new Error(`login failed: ${res.status} ${JSON.stringify(res.body)}`);
  const cookie = cookieOf(res);
  const csrf = res.body.csrfToken;
  return {
    ...user,
    cookie,
    csrf,
    call: async <M extends string, P extends string>(
      method: M,
      path: P,
      body?: unknown,
      options: { csrf?: string | null; headers?: Record<string, string> } = {},
    ) => {
      const token = options.csrf === undefined ? csrf : options.csrf;
      return request(ts, method, path, body, {
        cookie,
        ...(token === null ? {} : { 'x-csrf-token': token }),
        ...options.headers,
      });
    },
  };
}

export async function consoleClient(ts: TestServer, role: UserRole, org = 'acme'): Promise<ConsoleClient> {
  return signIn(ts, await makeUser(ts, role, org));
}
