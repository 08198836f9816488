import { useEffect, useState } from 'preact/hooks';
import { post } from '../api';
import type { SessionReply } from '../types';
import { ErrorNote, useAction } from '../ui';

export function LoginPage({ onLogin }: { onLogin: (s: SessionReply) => void }) {
  const [email, setEmail] = useState('');
  const [password, setPassword] = useState('');
  const action = useAction();
  useEffect(() => {
    document.title = 'Log in · Parley console';
  }, []);

  const submit = async (e: Event) => {
    e.preventDefault();
    let reply: SessionReply | undefined;
    await action.run(async () => {
      reply = await post<SessionReply>('/console/api/login', { email, password });
    });
    if (reply) onLogin(reply);
  };

  return (
    <main id="main" class="login">
      <form class="card" onSubmit={submit} aria-labelledby="login-title">
        <h1 id="login-title">Log in to Parley</h1>
        <label for="login-email">Email</label>
        <input
          id="login-email"
          type="email"
          autoComplete="username"
          required
          value={email}
          onInput={(e) => setEmail(e.currentTarget.value)}
        />
        <label for="login-password">Password</label>
        <input
          id="login-password"
          type="password"
          autoComplete="current-password"
          required
          value={password}
          onInput={(e) => setPassword(e.currentTarget.value)}
        />
        <ErrorNote error={action.error} />
        <button type="submit" disabled={action.busy}>
          {action.busy ? 'Logging in…' : 'Log in'}
        </button>
      </form>
    </main>
  );
}
