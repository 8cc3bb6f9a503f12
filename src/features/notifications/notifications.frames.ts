import { defineFrameSource } from '../../platform/realtime/relay.ts';
import {
  payloadOf,
  type NotificationPayload,
  type NotificationRaised,
  type Recipient,
} from '../../contracts/notifications/notifications.events.ts';

/** A notification as the relay carries it: the push payload (the same content on both transports) and who gets it. */
export interface NotificationFrameData {
  /** null: every connection of the site (a test notification). */
  recipient: Recipient | null;
  payload: NotificationPayload;
}

/** The live frames of raised notifications: the realtime slice sends each to the connections of its recipients. */
export const notificationFrames = defineFrameSource<NotificationRaised>({
  types: ['NotificationRaised'],
  frame: (e) => {
    const data: NotificationFrameData = { recipient: e.data.recipient, payload: payloadOf(e.data) };
    return { type: 'notification', data };
  },
});
