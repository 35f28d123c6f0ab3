import { act, renderHook } from '@testing-library/react';
import { describe, expect, it } from 'vitest';
import { dismissToast, toast, useToasts } from '@/lib/toast';

describe('toast store', () => {
  it('keeps one toast at a time, the newest', () => {
    const { result } = renderHook(() => useToasts());
    act(() => {
      toast({ title: 'First' });
      toast({ title: 'Second' });
    });
    expect(result.current.map((t) => t.title)).toEqual(['Second']);
  });

  it('marks a dismissed toast closed', () => {
    const { result } = renderHook(() => useToasts());
    act(() => {
      dismissToast(toast({ title: 'Bye' }));
    });
    expect(result.current[0]).toMatchObject({ title: 'Bye', open: false });
  });
});
