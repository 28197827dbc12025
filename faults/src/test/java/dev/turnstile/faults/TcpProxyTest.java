package dev.turnstile.faults;

import static org.assertj.core.api.Assertions.assertThat;
import static org.assertj.core.api.Assertions.assertThatThrownBy;

import java.io.IOException;
import java.io.InputStream;
import java.io.OutputStream;
import java.net.InetAddress;
import java.net.InetSocketAddress;
import java.net.ServerSocket;
import java.net.Socket;
import java.net.SocketTimeoutException;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;

/** The network cut of the harness: bytes pass, are held while cut, and pass again once healed. */
class TcpProxyTest {

  private ServerSocket echo;
  private TcpProxy proxy;

  @BeforeEach
  void echoServerBehindAProxy() throws IOException {
    echo = new ServerSocket(0, 10, InetAddress.getLoopbackAddress());
    Thread server =
        new Thread(
            () -> {
              try (Socket socket = echo.accept()) {
                socket.getInputStream().transferTo(socket.getOutputStream());
              } catch (IOException e) {
                // closed by the test
              }
            },
            "echo");
    server.setDaemon(true);
    server.start();
    proxy = TcpProxy.start("test", echo.getLocalPort());
  }

  @AfterEach
  void close() throws IOException {
    proxy.close();
    echo.close();
  }

  @Test
  void aCutHoldsEveryByteUntilItHeals() throws IOException {
    try (Socket client = new Socket(InetAddress.getLoopbackAddress(), proxy.port())) {
      client.setSoTimeout(500);
      OutputStream out = client.getOutputStream();
      InputStream in = client.getInputStream();
      out.write('a');
      assertThat(in.read()).isEqualTo('a');

      proxy.cut(true);
      out.write('b');
      assertThatThrownBy(in::read).isInstanceOf(SocketTimeoutException.class);

      proxy.cut(false);
      client.setSoTimeout(5_000);
      assertThat(in.read()).isEqualTo('b');
    }
  }

  /**
   * The upstream port is held by a socket that is bound but does not listen: connecting to it is
   * refused, and nothing else can take the port meanwhile. (With the echo server's port closed
   * instead, a loaded machine could hand that port to another listener, and this test timed out
   * twice in full builds.)
   */
  @Test
  void aRefusedUpstreamClosesTheClientsConnection() throws IOException {
    try (Socket reserved = new Socket();
        TcpProxy refusing = reservePort(reserved)) {
      try (Socket client = new Socket(InetAddress.getLoopbackAddress(), refusing.port())) {
        client.setSoTimeout(30_000);
        assertThat(client.getInputStream().read()).isEqualTo(-1);
      }
    }
  }

  private static TcpProxy reservePort(Socket reserved) throws IOException {
    reserved.bind(new InetSocketAddress(InetAddress.getLoopbackAddress(), 0));
    return TcpProxy.start("refusing", reserved.getLocalPort());
  }
}
