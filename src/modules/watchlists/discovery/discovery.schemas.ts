import { Type } from "typebox";

export const CuratedListsResponse = Type.Object(
  {
    curatedLists: Type.Array(
      Type.Object({
        uuid: Type.String(),
        name: Type.String(),
        description: Type.String(),
        listImageUrl: Type.String({ description: "The large logo of the list's first instrument" }),
        items: Type.Array(Type.Object({ instrumentId: Type.Integer({ format: "int32" }) })),
      }),
    ),
  },
  { description: "Themed lists of instruments" },
);

export const RecommendationsParams = Type.Object({
  itemsCount: Type.Integer({ minimum: 1, maximum: 100, description: "How many instruments to recommend, at most" }),
});

export const RecommendationsResponse = Type.Object(
  {
    ResponseType: Type.Literal("Instrument"),
    Recommendations: Type.Array(Type.Integer({ format: "int32" }), { description: "Instrument ids, best first" }),
  },
  {
    description:
      "Instruments held by the people the caller follows, and instruments like those on the caller's watchlists " +
      "and positions; never one the caller already watches or holds",
  },
);
