import { deferred, openedBy, type OpenedWith } from '@/components/ui/deferred';
import { KeysHelpButton } from './keys-help-trigger';

const Help = deferred(() => import('./list-keys-help-content').then((m) => m.default));

function Placeholder({ open }: { open: (how: OpenedWith) => void }) {
  return <KeysHelpButton aria-haspopup="dialog" aria-expanded={false} onClick={(e) => open(openedBy(e))} />;
}

/**
 * The keyboard help (`?`, or this button; the dialog is in `list-keys-help-content`). Its
 * code arrives after the first story (see `deferred`); the `?` key presses the trigger.
 */
export function ListKeysHelp() {
  return <Help placeholder={Placeholder} />;
}
