import { Link } from 'react-router';
import { buttonClass } from '@/components/ui/button';
import { paths } from '@/config/paths';

/**
 * The foot of a list the server pages (the feed, search results), as its last answer says
 * (`feedEnd`): Read More while it hands a cursor, Subscribe Now when the reader has reached
 * their allowance, nothing when all is shown. `note` says what subscribing would add.
 */
export function ListEnd({
  end,
  loading,
  onMore,
  note,
}: {
  end: 'more' | 'subscribe' | 'end';
  loading: boolean;
  onMore: () => void;
  note?: string;
}) {
  if (end === 'more') {
    return (
      <button type="button" data-action="more" className={buttonClass('outline', 'lg', 'self-center')} onClick={onMore} disabled={loading}>
        {loading ? 'Loading…' : 'Read More'}
      </button>
    );
  }
  if (end === 'subscribe') {
    const link = (
      <Link to={paths.subscribe} className={buttonClass('primary', 'lg', 'self-center')}>
        Subscribe Now
      </Link>
    );
    if (!note) return link;
    return (
      <div className="flex flex-col items-center gap-2 py-2 text-center">
        <p className="text-sm text-slate-600 dark:text-slate-400">{note}</p>
        {link}
      </div>
    );
  }
  return null;
}
