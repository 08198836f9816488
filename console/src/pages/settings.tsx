import { useEffect, useState } from 'preact/hooks';
import { get, patch } from '../api';
import { canAdmin, useSession } from '../session';
import type { Settings } from '../types';
import { ErrorNote, LoadStatus, Page, useAction, useLoad } from '../ui';

/** Every IANA zone the browser knows (the server checks the one chosen). */
const ZONES: string[] = typeof Intl.supportedValuesOf === 'function' ? Intl.supportedValuesOf('timeZone') : [];

/** How many matching zones the list shows at once (typing more narrows it). */
const SHOWN = 12;

/**
 * The organization's zone, searched by any part of its name: typing "chic" lists America/Chicago (the browser's
 * datalist did the same, but offers no list a keyboard or a test can reliably drive everywhere). Arrow keys move
 * through the matches, Enter or a click picks one, Escape closes the list.
 */
function ZonePicker({ value, onChange }: { value: string; onChange: (zone: string) => void }) {
  const [open, setOpen] = useState(false);
  const [active, setActive] = useState(0);
  const q = value.trim().toLowerCase();
  const matches = (q ? ZONES.filter((z) => z.toLowerCase().includes(q)) : ZONES).slice(0, SHOWN);
  const shown = open && matches.length > 0 && !(matches.length === 1 && matches[0] === value);
  const pick = (zone: string) => {
    onChange(zone);
    setOpen(false);
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      if (!open) {
        setOpen(true);
        return;
      }
      const step = e.key === 'ArrowDown' ? 1 : -1;
      setActive((a) => (a + step + matches.length) % Math.max(matches.length, 1));
    } else if (e.key === 'Enter' && shown) {
      e.preventDefault();
      const zone = matches[Math.min(active, matches.length - 1)];
      if (zone) pick(zone);
    } else if (e.key === 'Escape') setOpen(false);
  };
  return (
    <div class="combo">
      <input
        id="time-zone"
        role="combobox"
        required
        autocomplete="off"
        aria-autocomplete="list"
        aria-expanded={shown}
        aria-controls={shown ? 'time-zones' : undefined}
        aria-activedescendant={shown ? `zone-${Math.min(active, matches.length - 1)}` : undefined}
        value={value}
        onInput={(e) => {
          onChange(e.currentTarget.value);
          setActive(0);
          setOpen(true);
        }}
        onKeyDown={onKeyDown}
        onBlur={() => setOpen(false)}
      />
      {shown && (
        <div id="time-zones" role="listbox" aria-label="Time zones" class="combo-list">
          {matches.map((z, i) => (
            <div
              key={z}
              id={`zone-${i}`}
              role="option"
              // Focus stays in the field (aria-activedescendant names the option).
              tabIndex={-1}
              aria-selected={i === active}
              // Before the input's blur closes the list.
              onMouseDown={(e) => {
                e.preventDefault();
                pick(z);
              }}
            >
              {z}
            </div>
          ))}
        </div>
      )}
    </div>
  );
}

const DAYS = ['mon', 'tue', 'wed', 'thu', 'fri', 'sat', 'sun'];
const words = (s: string) =>
  s
    .split(',')
    .map((w) => w.trim())
    .filter(Boolean);

function SettingsForm({ settings, editable, onSaved }: { settings: Settings; editable: boolean; onSaved: () => void }) {
  const [s, setS] = useState(settings);
  const [optOut, setOptOut] = useState(settings.optOutKeywords.join(', '));
  const [optIn, setOptIn] = useState(settings.optInKeywords.join(', '));
  const [saved, setSaved] = useState(false);
  const action = useAction();
  useEffect(() => setS(settings), [settings]);

  const save = async (e: Event) => {
    e.preventDefault();
    setSaved(false);
    const body = {
      timeZone: s.timeZone,
      contactHours: s.contactHours,
      contactDays: s.contactDays,
      smsVoiceOptOutCoupled: s.smsVoiceOptOutCoupled,
      regionalRules: s.regionalRules,
      optOutKeywords: words(optOut),
      optInKeywords: words(optIn),
    };
    if (await action.run(() => patch('/v1/settings', body))) {
      setSaved(true);
      onSaved();
    }
  };
  const toggleDay = (d: string, on: boolean) =>
    setS({ ...s, contactDays: on ? [...s.contactDays, d] : s.contactDays.filter((x) => x !== d) });

  return (
    <form class="card stack" onSubmit={save}>
      <fieldset disabled={!editable}>
        <legend>Contact hours</legend>
        <div class="inline">
          <label for="hours-start">From</label>
          <input
            id="hours-start"
            type="time"
            required
            value={s.contactHours.start}
            onInput={(e) => setS({ ...s, contactHours: { ...s.contactHours, start: e.currentTarget.value } })}
          />
          <label for="hours-end">to</label>
          <input
            id="hours-end"
            type="time"
            required
            value={s.contactHours.end}
            onInput={(e) => setS({ ...s, contactHours: { ...s.contactHours, end: e.currentTarget.value } })}
          />
        </div>
        <label for="time-zone">Time zone (when the lead has none)</label>
        <ZonePicker value={s.timeZone} onChange={(timeZone) => setS({ ...s, timeZone })} />
        <fieldset class="days">
          <legend>Contact days</legend>
          {DAYS.map((d) => (
            <span key={d} class="check">
              <input
                id={`day-${d}`}
                type="checkbox"
                checked={s.contactDays.includes(d)}
                onChange={(e) => toggleDay(d, e.currentTarget.checked)}
              />
              <label for={`day-${d}`}>{d}</label>
            </span>
          ))}
        </fieldset>
        <span class="check">
          <input
            id="regional"
            type="checkbox"
            checked={s.regionalRules}
            onChange={(e) => setS({ ...s, regionalRules: e.currentTarget.checked })}
          />
          <label for="regional">Apply stricter regional calling windows</label>
        </span>
      </fieldset>
      <fieldset disabled={!editable}>
        <legend>Opt-outs</legend>
        <span class="check">
          <input
            id="coupled"
            type="checkbox"
            checked={s.smsVoiceOptOutCoupled}
            onChange={(e) => setS({ ...s, smsVoiceOptOutCoupled: e.currentTarget.checked })}
          />
          <label for="coupled">An SMS or voice opt-out unsubscribes both</label>
        </span>
        <label for="opt-out-words">
          Extra opt-out keywords (comma separated; STOP and the built-in ones always apply)
        </label>
        <input id="opt-out-words" value={optOut} onInput={(e) => setOptOut(e.currentTarget.value)} />
        <label for="opt-in-words">Extra opt-in keywords (comma separated)</label>
        <input id="opt-in-words" value={optIn} onInput={(e) => setOptIn(e.currentTarget.value)} />
      </fieldset>
      <ErrorNote error={action.error} />
      {saved && (
        <p class="muted" role="status">
          Settings saved.
        </p>
      )}
      {editable ? (
        <button type="submit" disabled={action.busy}>
          Save settings
        </button>
      ) : (
        <p class="notice">Only an admin can change settings.</p>
      )}
    </form>
  );
}

export function SettingsPage() {
  const { user } = useSession();
  const settings = useLoad(() => get<Settings>('/v1/settings'), []);
  return (
    <Page title="Settings">
      <LoadStatus load={settings} what="settings" />
      {settings.data && (
        <SettingsForm settings={settings.data} editable={canAdmin(user.role)} onSaved={settings.reload} />
      )}
    </Page>
  );
}
