// Key specs such as 'Mod+Shift+L', 'Escape' or '?' parsed into a canonical chord, and rendered for
// people. `Mod` is Meta on macOS and Ctrl elsewhere; the platform is passed in, never read from a global.

export type Platform = 'mac' | 'other';

/** A key combination with `Mod` already resolved; `key` is lower case (`'l'`, `'escape'`, `'?'`). */
export interface Chord {
  ctrl: boolean;
  meta: boolean;
  alt: boolean;
  shift: boolean;
  key: string;
}

/** A key spec that cannot be parsed. */
export class InvalidShortcutError extends Error {
  override readonly name = 'InvalidShortcutError';
  constructor(keys: string, problem: string) {
    super(
      `Shortcut '${keys}' is invalid: ${problem}; write it like 'Mod+Shift+L', 'Escape' or '?'`,
    );
  }
}

type Modifier = 'mod' | 'ctrl' | 'meta' | 'alt' | 'shift';

const modifierNames: Record<string, Modifier> = {
  mod: 'mod',
  ctrl: 'ctrl',
  control: 'ctrl',
  meta: 'meta',
  cmd: 'meta',
  command: 'meta',
  alt: 'alt',
  option: 'alt',
  shift: 'shift',
};

const keyAliases: Record<string, string> = { esc: 'escape', space: ' ', spacebar: ' ' };

/** Mac when the user agent says so; everything else uses Ctrl for `Mod`. */
export function platformFromUserAgent(userAgent: string): Platform {
  return /Mac|iPhone|iPad/.test(userAgent) ? 'mac' : 'other';
}

/** Normalizes a KeyboardEvent.key value (or a spec's key token) to the form chords compare. */
export function normalizeKey(key: string): string {
  const lower = key.length === 1 ? key.toLowerCase() : key.toLowerCase().trim();
  return keyAliases[lower] ?? lower;
}

/**
 * Symbols such as '?' already imply whatever Shift the keyboard layout needs to type them, so Shift
 * is ignored for them: '?' and 'Shift+?' are the same chord and match on every layout.
 */
function shiftIsImplied(key: string): boolean {
  return key.length === 1 && !/[a-z0-9 ]/.test(key);
}

export function parseChord(keys: string, platform: Platform): Chord {
  const tokens = keys.split('+').map((token) => token.trim());
  const keyToken = tokens.pop();
  if (keyToken === undefined || keyToken === '')
    throw new InvalidShortcutError(keys, 'it names no key');
  const chord: Chord = {
    ctrl: false,
    meta: false,
    alt: false,
    shift: false,
    key: normalizeKey(keyToken),
  };
  if (chord.key in modifierNames) {
    throw new InvalidShortcutError(keys, `'${keyToken}' is a modifier, not a key`);
  }
  for (const token of tokens) {
    const modifier = modifierNames[token.toLowerCase()];
    if (modifier === undefined) {
      throw new InvalidShortcutError(
        keys,
        `'${token}' is not a modifier (Mod, Ctrl, Meta, Alt, Shift)`,
      );
    }
    if (modifier === 'mod') chord[platform === 'mac' ? 'meta' : 'ctrl'] = true;
    else chord[modifier] = true;
  }
  if (shiftIsImplied(chord.key)) chord.shift = false;
  return chord;
}

export interface KeyStroke {
  /** KeyboardEvent.key */
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  altKey: boolean;
  shiftKey: boolean;
  /** Whether the keystroke lands in a text input, textarea or contenteditable element. */
  inEditableTarget: boolean;
}

export function chordOfStroke(stroke: KeyStroke): Chord {
  const key = normalizeKey(stroke.key);
  return {
    ctrl: stroke.ctrlKey,
    meta: stroke.metaKey,
    alt: stroke.altKey,
    shift: stroke.shiftKey && !shiftIsImplied(key),
    key,
  };
}

/** One string per chord, so equal chords (however they were written) compare equal. */
export function chordId(chord: Chord): string {
  const modifiers = [
    chord.ctrl && 'ctrl',
    chord.meta && 'meta',
    chord.alt && 'alt',
    chord.shift && 'shift',
  ];
  return [...modifiers.filter((m) => m !== false), chord.key].join('+');
}

const keyLabels: Record<string, string> = {
  ' ': 'Space',
  escape: 'Esc',
  enter: 'Enter',
  arrowup: '↑',
  arrowdown: '↓',
  arrowleft: '←',
  arrowright: '→',
};

function keyLabel(key: string): string {
  return keyLabels[key] ?? key.charAt(0).toUpperCase() + key.slice(1);
}

/** How the chord is written for this platform's users: '⇧⌘L' on a Mac, 'Ctrl+Shift+L' elsewhere. */
export function chordLabel(chord: Chord, platform: Platform): string {
  if (platform === 'mac') {
    const symbols = [chord.ctrl && '⌃', chord.alt && '⌥', chord.shift && '⇧', chord.meta && '⌘'];
    return [...symbols.filter((s) => s !== false), keyLabel(chord.key)].join('');
  }
  const names = [
    chord.ctrl && 'Ctrl',
    chord.alt && 'Alt',
    chord.shift && 'Shift',
    chord.meta && 'Meta',
  ];
  return [...names.filter((n) => n !== false), keyLabel(chord.key)].join('+');
}

const ariaKeyNames: Record<string, string> = {
  ' ': 'Space',
  arrowup: 'ArrowUp',
  arrowdown: 'ArrowDown',
  arrowleft: 'ArrowLeft',
  arrowright: 'ArrowRight',
};

/** The chord as the `aria-keyshortcuts` attribute writes it ('Control+Shift+L'). */
export function chordAriaKeys(chord: Chord): string {
  const names = [
    chord.ctrl && 'Control',
    chord.alt && 'Alt',
    chord.shift && 'Shift',
    chord.meta && 'Meta',
  ];
  const key = ariaKeyNames[chord.key] ?? keyLabel(chord.key);
  return [...names.filter((n) => n !== false), key].join('+');
}

export interface ShortcutHint {
  label: string;
  aria: string;
}

/** What to show beside a control that has a shortcut, and what to tell assistive technology. */
export function shortcutHint(keys: string, platform: Platform): ShortcutHint {
  const chord = parseChord(keys, platform);
  return { label: chordLabel(chord, platform), aria: chordAriaKeys(chord) };
}
