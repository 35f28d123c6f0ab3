// GET /api/unread: how many items the reader may still read in their feed, for the Feed tab
// and the page title. Read again whenever a mark reaches the server (item-sets provider).
import { useQuery } from '@tanstack/react-query';
import { api } from '@/lib/api-client';
import type { UnreadCount } from '@/lib/api/types';
import { useAuth } from '@/lib/auth';

export const UNREAD_KEY = ['unread'] as const;

/** The signed-in reader's unread count; undefined for a visitor or until it arrives. */
export function useUnread(): number | undefined {
  const { user } = useAuth();
  const query = useQuery({
    queryKey: [...UNREAD_KEY, user?.id ?? null],
    queryFn: ({ signal }) => api.get<UnreadCount>('/api/unread', signal),
    enabled: Boolean(user),
  });
  return user ? query.data?.unread : undefined;
}
