/// Reason phrases for the status lines the transport writes itself (a
/// refused upgrade, see `WebServer.refuseUpgrade`); lws' own table is not
/// exported. Clients read the number; the phrase is for people.
enum HTTPStatus {
    static func reason(_ status: Int) -> String {
        switch status {
        case 400: return "Bad Request"
        case 401: return "Unauthorized"
        case 403: return "Forbidden"
        case 404: return "Not Found"
        case 413: return "Payload Too Large"
        case 429: return "Too Many Requests"
        case 500: return "Internal Server Error"
        case 503: return "Service Unavailable"
        default: return status < 300 ? "OK" : "Error"
        }
    }
}
