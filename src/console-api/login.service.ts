import { DomainError, TooManyRequests } from '../platform/errors.js';
import type { Deps } from '../platform/deps.js';
import { findOrganization } from '../organizations/organizations.repository.js';
import { LoginThrottle } from '../users/login-throttle.js';
import { openSession, type ConsoleSession } from '../users/sessions.service.js';
import { authenticateUser, normalizeEmail } from '../users/users.service.js';
import type { SessionUserView } from './console.schemas.js';

class LoginThrottled extends TooManyRequests {
  constructor(seconds: number) {
    super(seconds, true);
  }
}

export const newLoginThrottle = (deps: Deps) =>
  new LoginThrottle(deps.config.console.loginFailuresPerAccount, deps.config.console.loginFailuresPerAddress, () =>
    deps.clock.now().getTime(),
  );

export interface LoggedIn {
  user: SessionUserView;
  csrfToken: string;
  token: string;
}

/**
 * Reserves an attempt with the throttle before the password is checked, so
 * concurrent guesses cannot all pass the limit; a failure counts against the
 * account and the address.
 */
export async function login(
  deps: Deps,
  throttle: LoginThrottle,
  email: string,
  password: string,
  address: string,
): Promise<LoggedIn> {
  const account = normalizeEmail(email);
  const attempt = throttle.begin(account, address);
  if (typeof attempt === 'number') throw new LoginThrottled(attempt);
  let user: Awaited<ReturnType<typeof authenticateUser>>;
  try {
    user = await authenticateUser(deps, account, password);
  } catch (err) {
    attempt.abandoned();
    throw err;
  }
  if (!user) {
    attempt.failed();
    throw new DomainError('invalid_login');
  }
  attempt.succeeded();
  const org = await findOrganization(deps.db, user.organization_id);
  const { token, csrfToken } = await openSession(deps, user);
  return {
    user: {
      id: user.id,
      email: user.email,
      role: user.role,
      organizationId: user.organization_id,
      organizationName: org?.name ?? '',
    },
    csrfToken,
    token,
  };
}

export const sessionView = (s: ConsoleSession): { user: SessionUserView; csrfToken: string } => ({
  user: {
    id: s.userId,
    email: s.email,
    role: s.role,
    organizationId: s.organizationId,
    organizationName: s.organizationName,
  },
  csrfToken: s.csrfToken,
});
