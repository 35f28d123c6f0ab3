// The wire types of the daemon, named for the app. They come from `schema.d.ts`, which
// openapi-typescript generates from web/openapi.json (`npm run api-types`), so a change
// on the server shows up here as a type error instead of drifting unnoticed.
import type { components } from '@/lib/api/schema';

type Schemas = components['schemas'];

export type NewsItem = Schemas['NewsItem'];
export type Story = Schemas['Story'];
export type Outlet = Schemas['Outlet'];
export type Trend = Schemas['Trend'];
export type TrendsPage = Schemas['TrendsPage'];
export type FeedPage = Schemas['FeedPage'];
export type SharedItem = Schemas['SharedItem'];
export type MarkResult = Schemas['MarkResult'];
export type Takeaways = Schemas['Takeaways'];
export type UserMetadata = Schemas['UserMetadata'];
export type ClientConfig = Schemas['ClientConfig'];
export type WaitlistStatus = Schemas['WaitlistStatus'];
export type ProfileBody = Schemas['ProfileBody'];
export type ApiKeyBody = Schemas['ApiKeyBody'];
export type CheckoutUrl = Schemas['CheckoutUrl'];
export type VerifyResult = Schemas['VerifyResult'];
export type WeeklySummary = Schemas['WeeklySummary'];
export type ErrorBody = Schemas['ErrorBody'];
export type SearchPage = Schemas['SearchPage'];
export type SearchHit = Schemas['SearchHit'];
export type Highlights = Schemas['Highlights'];
export type ProfileChange = Schemas['ProfileChange'];
export type Opened = Schemas['Opened'];
export type OpenedFrom = Schemas['OpenedFrom'];
export type UnreadCount = Schemas['UnreadCount'];
export type MarkOlderBody = Schemas['MarkOlderBody'];
export type ReadBeforeState = Schemas['ReadBeforeState'];
export type Insights = Schemas['Insights'];
