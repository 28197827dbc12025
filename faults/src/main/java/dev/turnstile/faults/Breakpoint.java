package dev.turnstile.faults;

import com.sun.jdi.Bootstrap;
import com.sun.jdi.IncompatibleThreadStateException;
import com.sun.jdi.Method;
import com.sun.jdi.ReferenceType;
import com.sun.jdi.StackFrame;
import com.sun.jdi.VMDisconnectedException;
import com.sun.jdi.VirtualMachine;
import com.sun.jdi.connect.AttachingConnector;
import com.sun.jdi.connect.Connector;
import com.sun.jdi.connect.IllegalConnectorArgumentsException;
import com.sun.jdi.event.BreakpointEvent;
import com.sun.jdi.event.ClassPrepareEvent;
import com.sun.jdi.event.Event;
import com.sun.jdi.event.EventSet;
import com.sun.jdi.event.VMDeathEvent;
import com.sun.jdi.event.VMDisconnectEvent;
import com.sun.jdi.request.BreakpointRequest;
import com.sun.jdi.request.ClassPrepareRequest;
import com.sun.jdi.request.EventRequest;
import com.sun.jdi.request.EventRequestManager;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * Stops a running JVM at an exact point of its code, so that a SIGKILL lands there and nowhere
 * else: the JDK's own debugger interface (JDI, {@code jdk.jdi}) attached over JDWP to a process
 * started with {@link #jvmOption(int)}, with one breakpoint whose hit suspends every thread of the
 * process ({@link EventRequest#SUSPEND_ALL}). The harness uses it to kill a topology instance
 * inside a punctuation; sampling thread dumps could not: a punctuation is shorter than a dump
 * takes.
 *
 * <p>Until {@link #await} is called the process runs with the JDWP agent loaded and no request set.
 * Closing detaches; a JVM still suspended by a hit then resumes.
 */
final class Breakpoint implements AutoCloseable {

  /** Where a hit stopped the process: its thread and its stack, innermost frame first. */
  record Hit(String thread, List<String> frames) {

    /** Whether frame {@code depth} (0 = the breakpoint's method) is {@code className.method}. */
    boolean frameIs(int depth, String className, String method) {
      return depth < frames.size() && frames.get(depth).equals(className + "." + method);
    }
  }

  private final VirtualMachine vm;

  private Breakpoint(VirtualMachine vm) {
    this.vm = vm;
  }

  /**
   * The JVM option that makes a process attachable on loopback {@code port}: the JDWP agent as a
   * server over a socket, not suspending the process at start.
   */
  static String jvmOption(int port) {
    return "-agentlib:jdwp=transport=dt_socket,server=y,suspend=n,address=127.0.0.1:" + port;
  }

  /**
   * Attaches to the JVM listening on loopback {@code port}.
   *
   * @throws UncheckedIOException when nothing accepts within 10 s or the handshake fails
   */
  static Breakpoint attach(int port) {
    AttachingConnector connector =
        Bootstrap.virtualMachineManager().attachingConnectors().stream()
            .filter(c -> c.name().equals("com.sun.jdi.SocketAttach"))
            .findFirst()
            .orElseThrow(() -> new IllegalStateException("this JDK has no JDI socket connector"));
    Map<String, Connector.Argument> arguments = connector.defaultArguments();
    arguments.get("hostname").setValue("127.0.0.1");
    arguments.get("port").setValue(Integer.toString(port));
    arguments.get("timeout").setValue("10000");
    try {
      return new Breakpoint(connector.attach(arguments));
    } catch (IOException e) {
      throw new UncheckedIOException("cannot attach to the JVM on port " + port, e);
    } catch (IllegalConnectorArgumentsException e) {
      throw new IllegalStateException(e);
    }
  }

  /**
   * Sets a breakpoint at the first instruction of {@code className.method} (a method of that name
   * only; overloads are refused) and waits for its {@code hit}-th execution since now, in any
   * thread. On that hit every thread of the process stays suspended until {@link #close()}.
   *
   * @param hit 1 for the first execution, 2 for the second, ...
   * @return where it stopped, or empty when {@code timeout} passed first or the process ended (the
   *     process then runs on, the breakpoint removed)
   * @throws IllegalArgumentException when the class has no such method or more than one
   */
  Optional<Hit> await(String className, String method, int hit, Duration timeout) {
    EventRequestManager requests = vm.eventRequestManager();
    List<ReferenceType> loaded = vm.classesByName(className);
    if (loaded.isEmpty()) {
      ClassPrepareRequest prepare = requests.createClassPrepareRequest();
      prepare.addClassFilter(className);
      prepare.setSuspendPolicy(EventRequest.SUSPEND_EVENT_THREAD);
      prepare.enable();
    } else {
      arm(loaded.get(0), method, hit);
    }
    long deadline = System.nanoTime() + timeout.toNanos();
    try {
      for (long left = timeout.toMillis(); left > 0; ) {
        EventSet events = vm.eventQueue().remove(left);
        if (events == null) {
          break;
        }
        for (Event event : events) {
          if (event instanceof BreakpointEvent stop) {
            return Optional.of(hitOf(stop));
          }
          if (event instanceof ClassPrepareEvent prepared) {
            arm(prepared.referenceType(), method, hit);
          }
          if (event instanceof VMDeathEvent || event instanceof VMDisconnectEvent) {
            return Optional.empty();
          }
        }
        events.resume();
        left = (deadline - System.nanoTime()) / 1_000_000;
      }
      requests.deleteAllBreakpoints();
      requests.deleteEventRequests(requests.classPrepareRequests());
      return Optional.empty();
    } catch (VMDisconnectedException e) {
      return Optional.empty();
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return Optional.empty();
    }
  }

  private void arm(ReferenceType type, String method, int hit) {
    List<Method> methods = type.methodsByName(method);
    if (methods.size() != 1) {
      throw new IllegalArgumentException(
          type.name() + " has " + methods.size() + " methods named " + method + ", not one");
    }
    BreakpointRequest request =
        vm.eventRequestManager().createBreakpointRequest(methods.get(0).location());
    request.setSuspendPolicy(EventRequest.SUSPEND_ALL);
    if (hit > 1) {
      request.addCountFilter(hit);
    }
    request.enable();
  }

  private static Hit hitOf(BreakpointEvent stop) {
    List<String> frames = new ArrayList<>();
    try {
      for (StackFrame frame : stop.thread().frames()) {
        frames.add(
            frame.location().declaringType().name() + "." + frame.location().method().name());
      }
    } catch (IncompatibleThreadStateException e) {
      // Cannot happen for a thread a breakpoint suspended; the hit stands without its stack.
    }
    return new Hit(stop.thread().name(), List.copyOf(frames));
  }

  /** Detaches; a process still suspended by a hit resumes, one that was killed is just let go. */
  @Override
  public void close() {
    try {
      vm.dispose();
    } catch (VMDisconnectedException e) {
      // It was killed while suspended: nothing left to detach from.
    }
  }
}
