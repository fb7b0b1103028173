import { type Static, Type } from "typebox";

export const MeResponse = Type.Object(
  {
    gcid: Type.Integer({ description: "Global customer id" }),
    realCid: Type.Integer(),
    demoCid: Type.Integer(),
    username: Type.String(),
    firstName: Type.Union([Type.String(), Type.Null()]),
    middleName: Type.Union([Type.String(), Type.Null()]),
    lastName: Type.Union([Type.String(), Type.Null()]),
    playerLevel: Type.Integer(),
    gender: Type.Integer({ description: "0 unknown, 1 male, 2 female" }),
    language: Type.Integer({ description: "1 = English" }),
    dateOfBirth: Type.String(),
    lei: Type.Union([Type.String(), Type.Null()]),
    scopes: Type.Array(Type.String(), { description: "Scopes granted to this credential" }),
  },
  { description: "The authenticated user" },
);

/** Every user's avatar: initials drawn as SVG (decision 0071). */
export const Avatar = Type.Object({
  small: Type.String({ description: "35x35 image URL" }),
  medium: Type.String({ description: "50x50 image URL" }),
  large: Type.String({ description: "150x150 image URL" }),
  svg: Type.Object({ url: Type.String(), backgroundColor: Type.String(), textColor: Type.String() }),
});

/** The spec's "User profile" resource (owner, mentioned user, reaction owner), embedded by other modules. */
export const UserProfile = Type.Object(
  {
    id: Type.String({ description: "The user's gcid, as text" }),
    username: Type.String(),
    firstName: Type.String(),
    lastName: Type.String(),
    avatar: Avatar,
    roles: Type.Array(Type.String(), { description: "`Regular` for every user of this service" }),
    isBlocked: Type.Boolean({ description: "This user blocks the requester" }),
    isPrivate: Type.Boolean(),
    countryCode: Type.Integer({ description: "ISO 3166 numeric country code" }),
    piLevel: Type.Integer(),
  },
  { description: "User profile" },
);

export type MeView = Static<typeof MeResponse>;
export type AvatarView = Static<typeof Avatar>;
/** `isBlocked` is per requester: callers that know the requester set it. */
export type UserProfile = Static<typeof UserProfile>;
