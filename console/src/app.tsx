import { useEffect, useState } from 'preact/hooks';
import { get, post, setCsrfToken, whenUnauthorized } from './api';
import { Link, navigate, usePath } from './router';
import { SessionContext, canAdmin } from './session';
import type { SessionReply, User } from './types';
import { LoginPage } from './pages/login';
import { InboxPage } from './pages/inbox';
import { LeadPage } from './pages/lead';
import { LeadsPage } from './pages/leads';
import { ProfilesPage } from './pages/profiles';
import { WebhooksPage } from './pages/webhooks';
import { SettingsPage } from './pages/settings';
import { KeysPage } from './pages/keys';
import { UsersPage } from './pages/users';
import { HandoffBadge, HandoffsPage } from './pages/handoffs';
import { AnalyticsPage } from './pages/analytics';
import { PlaygroundPage } from './pages/playground';
import { UserText } from './user-text';

const NAV: { href: string; label: string; admin?: boolean }[] = [
  { href: '/', label: 'Inbox' },
  { href: '/leads', label: 'Leads' },
  { href: '/handoffs', label: 'My hand-offs' },
  { href: '/profiles', label: 'Profiles' },
  { href: '/playground', label: 'Playground' },
  { href: '/analytics', label: 'Analytics' },
  { href: '/webhooks', label: 'Webhooks', admin: true },
  { href: '/settings', label: 'Settings' },
  { href: '/keys', label: 'API keys', admin: true },
  { href: '/users', label: 'Users', admin: true },
];

function Routes({ path, user }: { path: string; user: User }) {
  const lead = /^\/leads\/([^/]+)$/.exec(path);
  if (lead?.[1]) return <LeadPage id={decodeURIComponent(lead[1])} />;
  switch (path) {
    case '/':
    case '/inbox':
      return <InboxPage />;
    case '/leads':
      return <LeadsPage />;
    case '/profiles':
      return <ProfilesPage />;
    case '/settings':
      return <SettingsPage />;
    case '/handoffs':
      return <HandoffsPage />;
    case '/analytics':
      return <AnalyticsPage />;
    case '/playground':
      return <PlaygroundPage />;
  }
  if (canAdmin(user.role)) {
    if (path === '/webhooks') return <WebhooksPage />;
    if (path === '/keys') return <KeysPage />;
    if (path === '/users') return <UsersPage />;
  }
  return (
    <section class="page">
      <h1>Not found</h1>
      <p>
        There is no page here. <Link href="/">Back to the inbox</Link>
      </p>
    </section>
  );
}

export function App() {
  const path = usePath();
  const [user, setUser] = useState<User | null | undefined>(undefined);

  useEffect(() => {
    whenUnauthorized(() => setUser(null));
    // Signed in already (the cookie), or not: then the login page.
    get<SessionReply>('/console/api/session').then(
      (s) => (setCsrfToken(s.csrfToken), setUser(s.user)),
      () => setUser(null),
    );
  }, []);

  const login = (s: SessionReply) => {
    setCsrfToken(s.csrfToken);
    setUser(s.user);
    if (path === '/login') navigate('/', true);
  };
  const logout = () => {
    post('/console/api/logout').finally(() => {
      setCsrfToken('');
      setUser(null);
      navigate('/login', true);
    });
  };

  if (user === undefined) return <p class="muted boot">Loading…</p>;
  if (user === null) return <LoginPage onLogin={login} />;

  const current = (href: string) =>
    href === '/' ? path === '/' || path === '/inbox' : path === href || path.startsWith(`${href}/`);
  return (
    <SessionContext.Provider value={{ user, logout }}>
      <a class="skip" href="#main">
        Skip to content
      </a>
      <header class="top">
        <span class="brand">Parley</span>
        <nav aria-label="Main">
          <ul>
            {NAV.filter((n) => !n.admin || canAdmin(user.role)).map((n) => (
              <li key={n.href}>
                <Link href={n.href} aria-current={current(n.href) ? 'page' : undefined}>
                  {n.label}
                  {n.href === '/handoffs' && (
                    <>
                      {' '}
                      <HandoffBadge />
                    </>
                  )}
                </Link>
              </li>
            ))}
          </ul>
        </nav>
        <div class="who">
          <span>
            <UserText text={user.email} /> <span class="badge">{user.role}</span> ·{' '}
            <UserText text={user.organizationName} />
          </span>
          <button type="button" class="link" onClick={logout}>
            Log out
          </button>
        </div>
      </header>
      <main id="main" tabIndex={-1}>
        <Routes path={path} user={user} />
      </main>
    </SessionContext.Provider>
  );
}
