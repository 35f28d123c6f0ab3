// GET /api/unread: how many items the reader may still read in their feed, for the Feed tab
// and the page title. Read again whenever a mark reaches the server (item-sets provider).
import { useQuery } from '@tanstack/react-query';
import { client, unwrap } from '@/lib/api-client';
import { useAuth } from '@/lib/auth';

export const UNREAD_KEY = ['unread'] as const;

/** The signed-in reader's unread count; undefined for a visitor or until it arrives. */
export function useUnread(): number | undefined {
  const { user } = useAuth();
  const query = useQuery({
    queryKey: [...UNREAD_KEY, user?.id ?? null],
    queryFn: ({ signal }) => unwrap(client.GET('/api/unread', { signal })),
    enabled: Boolean(user),
  });
  return user ? query.data?.unread : undefined;
}
