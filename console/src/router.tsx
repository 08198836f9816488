import type { ComponentChildren } from 'preact';
import { useEffect, useState } from 'preact/hooks';

/** A few client-side routes under /console/: the server answers index.html for any of them. */
export const BASE = '/console';

const listeners = new Set<() => void>();

export function navigate(to: string, replace = false): void {
  const url = `${BASE}${to}`;
  if (replace) history.replaceState(null, '', url);
  else history.pushState(null, '', url);
  listeners.forEach((fn) => fn());
  window.scrollTo(0, 0);
}

window.addEventListener('popstate', () => listeners.forEach((fn) => fn()));

/** The path inside the console, e.g. `/leads/abc` (no trailing slash, `/` for the inbox). */
export function currentPath(): string {
  const p = location.pathname.startsWith(BASE) ? location.pathname.slice(BASE.length) : location.pathname;
  return p.replace(/\/+$/, '') || '/';
}

export function usePath(): string {
  const [path, setPath] = useState(currentPath());
  useEffect(() => {
    const fn = () => setPath(currentPath());
    listeners.add(fn);
    return () => void listeners.delete(fn);
  }, []);
  return path;
}

type LinkProps = {
  href: string;
  children: ComponentChildren;
  class?: string;
  'aria-current'?: 'page' | undefined;
  'aria-label'?: string;
};

/** A real link (keyboard, middle-click, copy address) that routes in place on a plain click. */
export function Link({ href, children, ...rest }: LinkProps) {
  const onClick = (e: MouseEvent) => {
    if (e.defaultPrevented || e.button !== 0 || e.metaKey || e.ctrlKey || e.shiftKey || e.altKey) return;
    e.preventDefault();
    navigate(href);
  };
  return (
    <a href={`${BASE}${href}`} onClick={onClick} {...rest}>
      {children}
    </a>
  );
}
