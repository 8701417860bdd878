"""werkzeug's HTTP error texts, marked for the catalogs: the API answers a 404, 405, 413 and
the like with werkzeug's description as its ``message``, in the caller's language
(``service.app``). Each is werkzeug's text exactly, so English stays werkzeug's own."""

from __future__ import annotations

from service.i18n import N_

DESCRIPTIONS = (
    N_("The browser (or proxy) sent a request that this server could not understand."),
    N_(
        "The server could not verify that you are authorized to access the URL requested. You "
        "either supplied the wrong credentials (e.g. a bad password), or your browser doesn't "
        "understand how to supply the credentials required."
    ),
    N_(
        "You don't have the permission to access the requested resource. It is either "
        "read-protected or not readable by the server."
    ),
    N_(
        "The requested URL was not found on the server. If you entered the URL manually please "
        "check your spelling and try again."
    ),
    N_("The method is not allowed for the requested URL."),
    N_(
        "The resource identified by the request is only capable of generating response entities "
        "which have content characteristics not acceptable according to the accept headers sent "
        "in the request."
    ),
    N_("The data value transmitted exceeds the capacity limit."),
    N_(
        "The length of the requested URL exceeds the capacity limit for this server. The request "
        "cannot be processed."
    ),
    N_("The server does not support the media type transmitted in the request."),
    N_("This user has exceeded an allotted request count. Try again later."),
    N_("One or more header fields exceeds the maximum size."),
    N_(
        "The server encountered an internal error and was unable to complete your request. "
        "Either the server is overloaded or there is an error in the application."
    ),
)

INTERNAL = N_("something went wrong on our side; nothing was changed")
"""The ``message`` of a 500 the service did not see coming."""
