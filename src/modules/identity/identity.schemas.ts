import { Type } from "typebox";

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
