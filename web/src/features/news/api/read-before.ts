// POST /api/read-before ("mark as read": everything, or what is older than a day or a week) and
// PUT /api/read-before (its undo). One cut-off per reader on the server, whatever the number of
// items; the feed and the unread count are read again after either.
import { client, unwrap } from '@/lib/api-client';
import type { MarkOlderBody } from '@/lib/api/types';

export const markReadBefore = (olderThan: MarkOlderBody['olderThan']) => unwrap(client.POST('/api/read-before', { body: { olderThan } }));

export const putReadBefore = (readBefore: string | null) => unwrap(client.PUT('/api/read-before', { body: { readBefore } }));
