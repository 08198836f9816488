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
 * An option's id, from its zone: it names the same zone however the list is filtered, so a screen reader announces
 * a move to another zone (an id by position would stay `zone-0` while its zone changes under it). Every character an
 * id should not carry is written as its code, so two zones never share an id (`Etc/GMT+1`, `Etc/GMT-1`).
 */
const optionId = (zone: string) => `zone-${zone.replace(/[^A-Za-z0-9-]/g, (c) => `_${c.charCodeAt(0).toString(16)}`)}`;

/**
 * The organization's zone, searched by any part of its name: typing "chic" lists America/Chicago. It is the WAI-ARIA
 * APG combobox with list autocomplete and no automatic selection: typing only filters, and what was typed stays
 * until the user moves to an option with the arrow keys (then Enter picks it) or clicks one. Escape closes the list,
 * a second one clears the field; Alt+Down opens the list without moving into it; Home, End and the left and right
 * arrows stay in the text box. A polite live region says how many zones match and how many of them are shown.
 */
function ZonePicker({ value, onChange }: { value: string; onChange: (zone: string) => void }) {
  const [open, setOpen] = useState(false);
  // The zone the user moved to with the arrow keys; null while the text box has the visual focus.
  const [active, setActive] = useState<string | null>(null);
  const q = value.trim().toLowerCase();
  const all = q ? ZONES.filter((z) => z.toLowerCase().includes(q)) : ZONES;
  const matches = all.slice(0, SHOWN);
  const shown = open && matches.length > 0 && !(matches.length === 1 && matches[0] === value);
  const current = active !== null && shown && matches.includes(active) ? active : null;
  const count = !open
    ? ''
    : shown
      ? `${matches.length} of ${all.length} ${all.length === 1 ? 'zone' : 'zones'} shown`
      : all.length === 0
        ? 'No zone matches'
        : '';
  const close = () => {
    setOpen(false);
    setActive(null);
  };
  const pick = (zone: string) => {
    onChange(zone);
    close();
  };
  const move = (step: 1 | -1) => {
    const at = current === null ? -1 : matches.indexOf(current);
    // From the text box, Down goes to the first option and Up to the last; past either end it wraps.
    const next = at === -1 ? (step === 1 ? 0 : matches.length - 1) : (at + step + matches.length) % matches.length;
    setActive(matches[next] ?? null);
  };
  const onKeyDown = (e: KeyboardEvent) => {
    if (e.key === 'ArrowDown' || e.key === 'ArrowUp') {
      e.preventDefault();
      setOpen(true);
      if (e.key === 'ArrowDown' && e.altKey) return;
      move(e.key === 'ArrowDown' ? 1 : -1);
    } else if (e.key === 'Enter') {
      // Only a zone the user moved to; otherwise Enter keeps what was typed and submits the form as usual.
      if (current !== null) {
        e.preventDefault();
        pick(current);
      } else close();
    } else if (e.key === 'Escape') {
      e.preventDefault();
      if (open) close();
      else onChange('');
    } else if (e.key === 'Home' || e.key === 'End' || e.key === 'ArrowLeft' || e.key === 'ArrowRight') {
      // The caret moves in the text box, which takes the visual focus back.
      setActive(null);
    }
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
        aria-activedescendant={current !== null ? optionId(current) : undefined}
        value={value}
        onInput={(e) => {
          onChange(e.currentTarget.value);
          setActive(null);
          setOpen(true);
        }}
        onKeyDown={onKeyDown}
        onBlur={close}
      />
      {shown && (
        <div
          id="time-zones"
          role="listbox"
          aria-label="Time zones"
          class="combo-list"
          // A press anywhere on the list, its scrollbar too, leaves the focus in the field: its blur would close the list.
          onMouseDown={(e) => e.preventDefault()}
        >
          {matches.map((z) => (
            // biome-ignore lint/a11y/useKeyWithClickEvents: the keyboard reaches an option through the field's keydown (aria-activedescendant), never by focusing it
            <div
              key={z}
              id={optionId(z)}
              role="option"
              // Focus stays in the field (aria-activedescendant names the option).
              tabIndex={-1}
              aria-selected={z === current}
              onClick={() => pick(z)}
            >
              {z}
            </div>
          ))}
        </div>
      )}
      <p class="sr-only" aria-live="polite">
        {count}
      </p>
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
