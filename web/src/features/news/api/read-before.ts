// POST /api/read-before ("mark as read": everything, or what is older than a day or a week) and
// PUT /api/read-before (its undo). One cut-off per reader on the server, whatever the number of
// items; the feed and the unread count are read again after either.
import { api } from '@/lib/api-client';
import type { MarkOlderBody, ReadBeforeState } from '@/lib/api/types';

export const markReadBefore = (olderThan: MarkOlderBody['olderThan']) => api.post<ReadBeforeState>('/api/read-before', { olderThan });

export const putReadBefore = (readBefore: string | null) => api.put<ReadBeforeState>('/api/read-before', { readBefore });
