import { Type } from "typebox";

export const NotificationMessage = Type.Object({
  messageId: Type.String({ format: "uuid" }),
  correlationId: Type.String({ format: "uuid" }),
  actionLink: Type.String({ description: "Where the notification leads (a relative API or app path)" }),
  imageTitle: Type.String(),
  imageUrl: Type.String(),
  notificationType: Type.String({ description: "See docs/notifications.md for the set" }),
  version: Type.String(),
  aggregatable: Type.Boolean(),
  grouped: Type.Boolean(),
  aggregationId: Type.String(),
  message: Type.String(),
  readStatus: Type.Union([Type.Literal("New"), Type.Literal("Seen"), Type.Literal("Read")]),
  publishDate: Type.String({ format: "date-time" }),
  subCategory: Type.String(),
  category: Type.String(),
  rtlLanguage: Type.Boolean(),
  section: Type.String(),
});

export const NotificationResult = Type.Object(
  {
    messages: Type.Array(NotificationMessage),
    meta: Type.Object({
      notSeen: Type.Integer({ format: "int32", description: "How many were New before this read" }),
    }),
  },
  { description: "The caller's notifications, newest first" },
);
