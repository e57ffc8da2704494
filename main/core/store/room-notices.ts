/** What a human is told when the store runs out of room, and when it has room again (see room.ts). */
import type { Translator } from '../../words/messages/index.js';
import type { NoticeInput } from '../notify/notice.js';
import type { RoomShortage } from './room.js';

export function storeFullNotice(shortage: RoomShortage, dbPath: string, words: Translator): NoticeInput {
  return {
    kind: 'store_full',
    dep: null,
    title: words.t('notices.storeFull.title'),
    body: words.t('notices.storeFull.body', { dbPath, error: shortage.error }),
    ts: shortage.since,
  };
}

export function storeRoomNotice(shortage: RoomShortage & { endedAt: number }, words: Translator): NoticeInput {
  return {
    kind: 'store_room',
    dep: null,
    title: words.t('notices.storeRoom.title'),
    body: words.t('notices.storeRoom.body', {
      fullForMs: shortage.endedAt - shortage.since,
      refused: shortage.refused,
    }),
    ts: shortage.endedAt,
  };
}
