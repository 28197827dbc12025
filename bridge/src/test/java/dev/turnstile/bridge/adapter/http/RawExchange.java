package dev.turnstile.bridge.adapter.http;

import java.io.ByteArrayOutputStream;
import java.io.OutputStream;
import java.net.Socket;
import java.nio.charset.StandardCharsets;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/**
 * One HTTP/1.1 exchange written byte for byte over a socket, for requests an HTTP client will not
 * send; the answer is read until the server closes the connection.
 */
record RawExchange(int status, Map<String, List<String>> headers, byte[] body) {

  static RawExchange send(int port, String request) throws Exception {
    byte[] answer;
    try (Socket socket = new Socket("127.0.0.1", port)) {
      socket.setSoTimeout(10_000);
      OutputStream out = socket.getOutputStream();
      out.write(request.getBytes(StandardCharsets.UTF_8));
      out.flush();
      ByteArrayOutputStream read = new ByteArrayOutputStream();
      socket.getInputStream().transferTo(read);
      answer = read.toByteArray();
    }
    String text = new String(answer, StandardCharsets.UTF_8);
    int end = text.indexOf("\r\n\r\n");
    String[] lines = text.substring(0, end).split("\r\n");
    Map<String, List<String>> headers = new LinkedHashMap<>();
    for (int i = 1; i < lines.length; i++) {
      int colon = lines[i].indexOf(':');
      headers
          .computeIfAbsent(lines[i].substring(0, colon), name -> new ArrayList<>())
          .add(lines[i].substring(colon + 1).trim());
    }
    return new RawExchange(
        Integer.parseInt(lines[0].split(" ")[1]),
        headers,
        text.substring(end + 4).getBytes(StandardCharsets.UTF_8));
  }
}
